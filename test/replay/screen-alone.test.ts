import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';
import { EXPECTATIONS } from './expectations.js';
import { fixturePath, loadReplayed } from './ground-truth.js';

// Float noise from converting epoch milliseconds to seconds.
const EPS = 1e-6;

/** Every turn's outcomes, in the order the turns first appear, from a replay's public states. */
function turnsOf(
  states: readonly TerminalState[],
): Array<{ id: string; outcomes: Array<{ result: string; t: number }> }> {
  const turns = new Map<string, Array<{ result: string; t: number }>>();
  for (const s of states) {
    if (s.turn.current && !turns.has(s.turn.current.id)) turns.set(s.turn.current.id, []);
    const { turnId, result } = s.lastTurn;
    if (turnId === null || result === 'none') continue;
    const list = turns.get(turnId) ?? [];
    if (list.at(-1)?.result !== result) list.push({ result, t: s.t });
    turns.set(turnId, list);
  }
  return [...turns].map(([id, outcomes]) => ({ id, outcomes }));
}

/**
 * The same real recordings with the submit times withheld: only the screen is left, as when a
 * person types the prompts by hand. Every turn must still be a turn of its own, with its own id
 * and the outcome it had when paneward submitted it, reported no earlier than the turn truly
 * ended on the model server.
 */
for (const [tool, table] of Object.entries(EXPECTATIONS)) {
  describe(`screen alone: real ${tool} recordings without their submit times`, () => {
    for (const [scenario, exp] of Object.entries(table.scenarios)) {
      (exp.knownProfileWeakness?.failing.includes('screen_alone') ? it.fails : it)(scenario, () => {
        const truth = loadReplayed(tool, scenario);
        const lines = readJsonLines(fixturePath(tool, scenario)).filter(
          ([, text]) => (JSON.parse(text) as { type?: string }).type !== 'input',
        );
        const states: TerminalState[] = [];
        replayRecording(lines, (s) => states.push(s));
        const turns = turnsOf(states);

        expect(new Set(turns.map((t) => t.id)).size, 'every turn its own id').toBe(turns.length);
        for (const t of turns) {
          expect(t.outcomes.length, `${t.id}: one outcome, never rewritten`).toBeLessThanOrEqual(1);
          expect(turns.filter((o) => o.id === t.id)).toHaveLength(1);
        }
        // Explicit turns that never showed an outcome leave nothing on screen to infer, and a
        // turn that ends with no outcome (`unknown`) leaves no last-turn result either.
        const hasOutcome = (o: string) => o !== 'none' && o !== 'unknown';
        const expected = exp.turns.filter(hasOutcome);
        const withOutcome = turns.filter((t) => t.outcomes.length > 0);
        expect(
          withOutcome.map((t) => t.outcomes[0]!.result),
          'outcomes, in order',
        ).toEqual(expected);
        const ended = truth.turns.filter((_, i) => hasOutcome(exp.turns[i]!));
        withOutcome.forEach((t, i) => {
          const trueEnd = ended[i]!.trueEnd;
          if (trueEnd !== null) {
            expect(
              t.outcomes[0]!.t,
              `${t.id}: reported before the turn truly ended`,
            ).toBeGreaterThanOrEqual(trueEnd - EPS);
          }
        });
        for (const s of states) {
          if (s.turn.current) expect(s.turn.current.source).toBe('surface_inference');
        }
      });
    }
  });
}
