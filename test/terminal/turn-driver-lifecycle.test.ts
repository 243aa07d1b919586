/**
 * The turn driver's own duties around the charts: the settle window on the terminal's timers,
 * what it reports for each turn, and that a stopped driver reports nothing more.
 */
import { describe, expect, it } from 'vitest';
import { FRAME_GAP, SETTLE_SECONDS, TurnHarness } from '../model/internal/turn-sut.js';

describe('turn driver', () => {
  it('stopped, it reports nothing more: a settle window that was running never ends in a success', () => {
    const h = new TurnHarness();
    h.armExplicit();
    h.newText();
    h.frame({ successCandidate: true });
    expect(h.settlingSince()).not.toBeNull();
    h.driver.stop();
    expect(h.timers.has('turn.settle')).toBe(false);
    const reported = h.turns.length;
    h.wait(10 * SETTLE_SECONDS);
    expect(h.turns).toHaveLength(reported);
    expect(h.transitions.filter((tr) => tr.machine === 'lastTurn')).toEqual([]);
  });

  it('reports a turn ending with its outcome at the time the chart decided it', () => {
    const h = new TurnHarness();
    const id = h.armExplicit();
    h.newText();
    h.frame({ successCandidate: true });
    const candidateAt = h.t;
    h.wait(10 * SETTLE_SECONDS);
    expect(h.turns.filter((ev) => ev.kind === 'turn.ended')).toEqual([
      {
        kind: 'turn.ended',
        t: candidateAt + SETTLE_SECONDS,
        turnId: id,
        source: 'explicit_input',
        outcome: 'success',
      },
    ]);
    expect(h.turns[0]).toEqual({
      kind: 'turn.started',
      t: candidateAt - FRAME_GAP,
      turn: { id, source: 'explicit_input', startedAt: candidateAt - FRAME_GAP },
    });
  });

  it('a turn submitted over an open one ends that one with no outcome, at the submit', () => {
    const h = new TurnHarness();
    const first = h.armExplicit();
    h.activeFrame();
    const second = h.armExplicit();
    expect(h.turns.filter((ev) => ev.kind === 'turn.ended')).toEqual([
      { kind: 'turn.ended', t: h.t, turnId: first, source: 'explicit_input', outcome: 'none' },
    ]);
    expect(h.snapshot().current).toMatchObject({ id: second });
  });

  it('restoring the last turn reports nothing, and the next outcome replaces it', () => {
    const h = new TurnHarness();
    h.driver.restoreLastTurn({
      result: 'known_failure',
      source: 'explicit_input',
      turnId: 'turn-3',
      at: 2,
    });
    expect(h.snapshot().lastTurn).toEqual({
      result: 'known_failure',
      source: 'explicit_input',
      turnId: 'turn-3',
      at: 2,
    });
    expect(h.turns).toEqual([]);
    expect(h.transitions).toEqual([]);
    h.frame({});
    h.activeFrame();
    h.newText();
    h.frame({ knownFailure: { kind: 'server_error', message: 'API Error: 500' } });
    // The same result for a new turn is still a transition worth recording.
    expect(h.transitions.filter((tr) => tr.machine === 'lastTurn')).toEqual([
      expect.objectContaining({
        from: 'known_failure',
        to: 'known_failure',
        event: 'evt_known_failure',
        turnId: 'turn-1',
      }),
    ]);
  });
});
