import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';
import { EXPECTATIONS } from './expectations.js';
import { completedAt, fixturePath, loadReplayed, outcomesOf } from './ground-truth.js';

// Float noise from converting epoch milliseconds to seconds.
const EPS = 1e-6;

/**
 * The working line of each CLI as recorded, its braille glyph captured. Qwen Code 0.15 draws
 * `.  `, `.. `, `...` in that place whenever `TMUX` is set (its `TMUX_SPINNER_FRAMES`); a Gemini
 * CLI built the same way, or a theme, would do the same.
 */
const WORKING_GLYPH: Record<string, RegExp> = {
  gemini_cli: /^( )[\u2800-\u28ff]( \S.*\(esc to cancel)/,
  qwen_code: /^( {2})[\u2800-\u28ff]( ?\S)/,
};

/** The recording with only the working line's glyph replaced by a dots spinner (`. ` and `..`). */
function withDotsSpinner(
  tool: string,
  scenario: string,
): { lines: Array<[number, string]>; changed: number } {
  const re = WORKING_GLYPH[tool]!;
  let frame = 0;
  let changed = 0;
  const lines = readJsonLines(fixturePath(tool, scenario)).map(([n, text]): [number, string] => {
    const line = JSON.parse(text) as { type?: string; text?: string };
    if (line.type !== 'frame' || typeof line.text !== 'string') return [n, text];
    const dots = frame++ % 2 === 0 ? '. ' : '..';
    const rows = line.text.split('\n').map((row) => {
      if (!re.test(row)) return row;
      changed++;
      return row.replace(re, `$1${dots}$2`);
    });
    return [n, JSON.stringify({ ...line, text: rows.join('\n') })];
  });
  return { lines, changed };
}

/**
 * Real Gemini CLI and Qwen Code recordings, replayed with only the spinner glyph of the working
 * line changed to a dots spinner: no turn may be reported completed, nor get an outcome, before
 * the model server's log says it ended.
 */
for (const tool of ['gemini_cli', 'qwen_code']) {
  describe(`${tool} recordings with a dots spinner in the working line`, () => {
    let total = 0;
    for (const scenario of Object.keys(EXPECTATIONS[tool]!.scenarios)) {
      it(scenario, () => {
        const truth = loadReplayed(tool, scenario);
        const { lines, changed } = withDotsSpinner(tool, scenario);
        total += changed;
        const states: TerminalState[] = [];
        replayRecording(lines, (s) => states.push(s));
        for (const turn of truth.turns) {
          if (turn.trueEnd === null) continue;
          const label = `${turn.id} (true end ${turn.trueEnd.toFixed(3)})`;
          const completed = completedAt(states, turn.id);
          if (completed !== null) {
            expect(completed, `${label}: completed at`).toBeGreaterThanOrEqual(turn.trueEnd - EPS);
          }
          for (const o of outcomesOf(states, turn.id)) {
            expect(o.t, `${label}: ${o.result} at`).toBeGreaterThanOrEqual(turn.trueEnd - EPS);
          }
        }
      });
    }
    it('changed working lines in the recordings', () => {
      expect(total).toBeGreaterThan(0);
    });
  });
}
