/**
 * The two endings of a turn that do not come from the screen's own markers (docs/statecharts.md
 * §4, docs/witness.md): stale-active recovery, which ends a turn that sat at the same idle
 * prompt for its window with no outcome, and the session record's outcome. Each is journaled
 * under its rule's name, so the name is part of the rule.
 */
import { describe, expect, it } from 'vitest';
import { ACTIVE, IDLE, chart, workedTurn } from './internal/turn-phase-chart.js';

describe('stale-active recovery', () => {
  it('a worked turn left at the idle prompt arms the window; when it runs out the turn ends with no outcome', () => {
    const c = workedTurn();
    c.frame(IDLE, 'P0 > prompt');
    expect(c.of('stale_window.start')).toHaveLength(1);
    c.actor.send({ type: 'stale_active_elapsed', t: 9 });
    expect(c.of('turn_abandoned')).toEqual([
      {
        type: 'turn_abandoned',
        turn: { id: 'u1', source: 'explicit_input', startedAt: 1 },
        at: 9,
        rule: 'stale_active_recovery',
      },
    ]);
    expect(c.outcomes()).toEqual([]);
    expect(c.actor.getSnapshot().context.current).toBeNull();
    expect(c.phase()).toBe('ready');
  });

  it('the window’s end changes nothing once the screen moved on (the window was cancelled)', () => {
    const c = workedTurn();
    c.frame(IDLE, 'P0 > prompt');
    c.frame(ACTIVE, 'P0 > prompt > working');
    expect(c.of('stale_window.cancel')).toHaveLength(1);
    c.actor.send({ type: 'stale_active_elapsed', t: 9 });
    expect(c.of('turn_abandoned')).toEqual([]);
    expect(c.actor.getSnapshot().context.current?.id).toBe('u1');
  });

  it('with no turn open there is nothing to abandon', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.actor.send({ type: 'stale_active_elapsed', t: 9 });
    expect(c.of('turn_abandoned')).toEqual([]);
    expect(c.phase()).toBe('ready');
  });
});

describe('the session record’s outcome', () => {
  it('ends the open turn with the record’s outcome, named as the record’s', () => {
    const c = workedTurn();
    c.actor.send({ type: 'record_outcome', t: 4, outcome: 'evt_interrupted' });
    expect(c.outcomes()).toEqual([
      {
        type: 'outcome',
        outcome: 'evt_interrupted',
        turnId: 'u1',
        source: 'explicit_input',
        startedAt: 1,
        at: 4,
        rule: 'record_outcome',
      },
    ]);
    expect(c.actor.getSnapshot().context.current).toBeNull();
    expect(c.phase()).toBe('ready');
  });

  it('with no turn open it is no one’s outcome', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.actor.send({ type: 'record_outcome', t: 4, outcome: 'evt_success_settled' });
    expect(c.outcomes()).toEqual([]);
  });
});
