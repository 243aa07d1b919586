import { describe, expect, it } from 'vitest';
import { STALE_SECONDS, TurnHarness } from '../model/internal/turn-sut.js';

/** The turn charts fed frames whose only news is a degraded chat context. */
describe('a degraded chat context never decides a turn', () => {
  it('an explicit turn at an idle prompt that reads degraded ends with no outcome, as without it', () => {
    const h = new TurnHarness();
    h.frame({});
    const id = h.armExplicit();
    h.activeFrame();
    h.newText();
    for (let i = 0; i < 5; i += 1)
      h.frame({ chatContext: 'degraded', degradedErrorType: 'codex_remote_compact_server_error' });
    expect(h.snapshot()).toMatchObject({ phase: 'active', current: { id } });
    h.wait(2 * STALE_SECONDS);
    expect(h.snapshot()).toMatchObject({ phase: 'ready', current: null });
    expect(h.snapshot().lastTurn.result).toBe('none');
    expect(h.transitions.filter((r) => r.machine === 'lastTurn')).toEqual([]);
    h.dispose();
  });

  it('with no turn armed it starts none', () => {
    const h = new TurnHarness();
    for (let i = 0; i < 10; i += 1) h.frame({ chatContext: i % 2 ? 'degraded' : 'current' });
    h.wait(2 * STALE_SECONDS);
    expect(h.snapshot()).toMatchObject({ phase: 'ready', current: null });
    expect(h.turns).toEqual([]);
    h.dispose();
  });
});
