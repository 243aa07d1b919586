import { describe, expect, it } from 'vitest';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';

function replay(file: string): TerminalState[] {
  const states: TerminalState[] = [];
  replayRecording(readJsonLines(file), (s) => states.push(structuredClone(s)));
  return states;
}

describe('stability.stableForSeconds is how long the public state has been unchanged', () => {
  it('a fresh success (real Claude Code turn) is published with 0, not stable; stable one window later', () => {
    const states = replay('test/fixtures/claude_code/normal-turn.jsonl');
    const i = states.findIndex((s) => s.lastTurn.result === 'success');
    expect(i).toBeGreaterThan(0);
    // The screen had not changed for the whole settle window, but the state just did.
    expect(states[i]!.stability).toEqual({ stable: false, stableForSeconds: 0 });
    const next = states[i + 1]!;
    expect(next.stability.stable).toBe(true);
    expect(next.t - states[i]!.t).toBeCloseTo(1, 6);
    expect(next.stability.stableForSeconds).toBeCloseTo(1, 6);
  });

  it('every published change other than the stability flag itself restarts the count', () => {
    const states = replay('test/fixtures/claude_code/normal-turn.jsonl');
    for (let i = 1; i < states.length; i += 1) {
      const flagOnly = states[i]!.stability.stable && !states[i - 1]!.stability.stable;
      if (!flagOnly)
        expect(states[i]!.stability, `state at ${states[i]!.t}`).toMatchObject({
          stable: false,
          stableForSeconds: 0,
        });
    }
  });
});
