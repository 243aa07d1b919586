/**
 * A turn's outcome marker is its own (statecharts.md §5): right after a prompt is submitted, the
 * screen still shows the last turn's interrupt or failure marker until the CLI redraws, and
 * that marker must not end the new turn, even once the screen has changed since the submit.
 *
 * Built from real recorded frames only: a recording whose turn ended with a marker, a submit,
 * then either frames of another recording of the same CLI and version that show the same marker
 * on a different transcript (the screen changed, the marker did not: not the new turn's), or
 * the recording's own turn again, whose marker goes away while it works and comes back (its own).
 */
import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';

interface Line {
  type: string;
  t: number;
  text?: string;
}

const load = (tool: string, name: string): Line[] =>
  readJsonLines(`test/fixtures/${tool}/${name}.jsonl`).map(([, text]) => JSON.parse(text) as Line);

/**
 * All of `first` (its turn ends with a marker), a submit 0.2 s after its last frame, then the
 * frames of `second` from `from` on, moved in time to follow the submit.
 */
function afterMarker(tool: string, first: string, second: string, from: number) {
  const a = load(tool, first);
  const b = load(tool, second).filter((l) => l.type === 'frame' && l.t >= from);
  const submitAt = a.at(-1)!.t + 0.2;
  const shift = submitAt + 0.05 - b[0]!.t;
  const lines = [
    ...a,
    { type: 'input', t: submitAt, text: 'next prompt' },
    ...b.map((l) => ({ ...l, t: Math.round((l.t + shift) * 1000) / 1000 })),
  ];
  const states: TerminalState[] = [];
  replayRecording(
    lines.map((l, i) => [i + 1, JSON.stringify(l)]),
    (s) => states.push(s),
  );
  const outcome = (turnId: string) =>
    states.find((s) => s.lastTurn.turnId === turnId)?.lastTurn ?? null;
  return { states, submitAt, shift, outcome };
}

describe('the last turn marker is not the new turn outcome', () => {
  it.each([
    // Kilo: the interrupt note of one session, then another session's.
    ['kilo', 'interrupted', 'hang', 34.037, 'interrupted', true],
    // Kilo: the same 500 error block (the two transcripts read alike: no evidence either).
    ['kilo', 'error-500', 'error-500-default-retries', 86.386, 'known_failure', false],
    // Qwen Code: `● Request cancelled.` of one session, then another session's.
    ['qwen_code', 'interrupted', 'retry-interrupted', 12.332, 'interrupted', true],
    ['qwen_code', 'error-500', 'error-500-default-retries', 109.006, 'known_failure', true],
  ])(
    '%s: %s, submit, another screen with the same marker',
    (tool, first, second, from, old, moved) => {
      const r = afterMarker(tool, first, second, from);
      // The first turn's own outcome is reported,
      expect(r.outcome('turn-1')?.result).toBe(old);
      // the new turn gets none: its screen never showed an outcome of its own.
      expect(r.outcome('turn-2')).toBeNull();
      const last = r.states.at(-1)!;
      expect(last.lastTurn).toMatchObject({ turnId: 'turn-1', result: old });
      // With evidence (the screen moved), the turn ended with no outcome once the screen sat
      // unchanged for the stale-active window; without, it is still open, waiting for its own.
      expect(last.turn.current === null).toBe(moved);
      expect(last.completion?.sawProjectionChange).toBe(moved);
    },
  );

  it.each([
    ['kilo', 'interrupted', 14.105, 19.905, 'interrupted'],
    ['kilo', 'error-400', 12.611, 13.593, 'known_failure'],
    ['qwen_code', 'interrupted', 4.545, 8.787, 'interrupted'],
    ['qwen_code', 'error-400', 5.186, 5.428, 'known_failure'],
  ])(
    '%s: %s, submit, the turn runs again and its own marker comes back',
    (tool, name, from, markerAt, result) => {
      const r = afterMarker(tool, name, name, from);
      expect(r.outcome('turn-1')?.result).toBe(result);
      const own = r.outcome('turn-2');
      expect(own?.result).toBe(result);
      // Reported when its own marker is drawn, not at the submit.
      expect(own!.at!).toBeGreaterThanOrEqual(markerAt + r.shift - 1e-6);
    },
  );
});
