import { describe, expect, it, vi } from 'vitest';
import { SETTLE_SECONDS, TurnHarness } from '../model/internal/turn-sut.js';

/** Counts the frames the turn-phase chart is sent. */
function countFrames(h: TurnHarness): () => number {
  const send = vi.spyOn(h.turnPhase, 'send');
  return () => send.mock.calls.filter(([ev]) => ev.type === 'frame').length;
}

describe('turn driver: repeated frames', () => {
  it('does not send a frame equal to the last one, which changed nothing', () => {
    const h = new TurnHarness();
    const frames = countFrames(h);
    h.activeFrame();
    h.activeFrame();
    // The first opened a turn; the second changed nothing; the rest would do the same.
    expect(frames()).toBe(2);
    h.activeFrame();
    h.activeFrame();
    expect(frames()).toBe(2);
    h.newText();
    h.activeFrame();
    expect(frames()).toBe(3);
    expect(h.snapshot()).toMatchObject({ phase: 'active', current: { id: 'turn-1' } });
  });

  it('sends a repeated frame again once something else moved the chart (a submit)', () => {
    const h = new TurnHarness();
    const frames = countFrames(h);
    h.activeFrame();
    h.activeFrame();
    // A submit while the spinner runs: the new turn has not seen the activity yet.
    const id = h.armExplicit();
    h.activeFrame();
    expect(frames()).toBe(3);
    // Only the spinner frame after the submit gives the turn evidence of its own: without it a
    // reply on the same transcript would never count as this turn's success.
    h.frame({ successCandidate: true });
    h.wait(SETTLE_SECONDS);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
  });

  it('skips the repeats also while an inspector watches the chart', () => {
    const h = new TurnHarness({}, { inspect: () => {} });
    const frames = countFrames(h);
    for (let i = 0; i < 4; i++) h.activeFrame();
    expect(frames()).toBe(2);
  });

  it('sends every frame on a hub that sends every event', () => {
    const h = new TurnHarness({}, { everyEvent: true });
    const frames = countFrames(h);
    for (let i = 0; i < 4; i++) h.activeFrame();
    expect(frames()).toBe(4);
  });

  it('keeps the settle window of a repeated success candidate, and settles it once', () => {
    const h = new TurnHarness();
    const id = h.armExplicit();
    h.newText();
    h.frame({ successCandidate: true });
    const since = h.settlingSince();
    for (let i = 0; i < 3; i++) h.frame({ successCandidate: true });
    expect(h.settlingSince()).toBe(since);
    h.wait(SETTLE_SECONDS);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
    expect(h.transitions.filter((r) => r.machine === 'lastTurn')).toHaveLength(1);
  });
});
