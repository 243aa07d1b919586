import { describe, expect, it } from 'vitest';
import {
  IDLE,
  ACTIVE,
  SUCCESS,
  DRAFT,
  FAILURE,
  chart,
  workedTurn,
} from './internal/turn-phase-chart.js';

describe('turn phase: defaults and restored turns', () => {
  it('without input: phase unknown, no turn, a 1 s settle window', () => {
    const c = chart();
    expect(c.phase()).toBe('unknown');
    expect(c.actor.getSnapshot().context.current).toBeNull();
    c.frame(IDLE, 'P0');
    c.arm('u1');
    c.frame(SUCCESS, 'reply');
    expect(c.of('settle_window.start')).toEqual([{ type: 'settle_window.start', seconds: 1 }]);
  });

  it('a restored turn is open and active from the start; its evidence carries over', () => {
    const turn = { id: 'r1', source: 'explicit_input' as const, startedAt: 0.25 };
    const c = chart({ settleSeconds: 2, openTurn: { turn, hadEvidence: true } });
    expect(c.phase()).toBe('active');
    // The first frame is a success candidate: the turn had evidence, so it settles.
    c.frame(SUCCESS, 'reply');
    expect(c.of('settle_window.start')).toEqual([{ type: 'settle_window.start', seconds: 2 }]);
    c.elapse();
    expect(c.outcomes()).toEqual([
      {
        type: 'outcome',
        outcome: 'evt_success_settled',
        turnId: 'r1',
        source: 'explicit_input',
        startedAt: 0.25,
        at: 1,
        rule: 'e_success_settled',
      },
    ]);
  });

  it('a restored turn without evidence does not take the screen it first sees as its own', () => {
    const turn = { id: 'r1', source: 'explicit_input' as const, startedAt: 0 };
    const c = chart({ openTurn: { turn, hadEvidence: false } });
    c.frame(SUCCESS, 'the last reply');
    expect(c.of('settle_window.start')).toEqual([]);
    expect(c.phase()).toBe('active');
  });
});

describe('turn phase: explicit turns', () => {
  it('the first turn only starts; a second one supersedes the open one', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.arm('u1');
    expect(c.emitted).toEqual([
      { type: 'turn_started', turn: { id: 'u1', source: 'explicit_input', startedAt: 1 } },
    ]);
    c.arm('u2');
    expect(c.emitted.slice(1)).toEqual([
      {
        type: 'turn_superseded',
        turn: { id: 'u1', source: 'explicit_input', startedAt: 1 },
        at: 1.5,
      },
      { type: 'turn_started', turn: { id: 'u2', source: 'explicit_input', startedAt: 1.5 } },
    ]);
  });

  it('an open turn with evidence stays active on a plain ready frame', () => {
    const c = workedTurn();
    c.frame(IDLE, 'P1');
    expect(c.phase()).toBe('active');
    expect(c.outcomes()).toEqual([]);
  });

  it('an open turn goes back to active when diagnostics are available again', () => {
    const c = workedTurn();
    c.frame(IDLE, 'P1', false);
    expect(c.phase()).toBe('unknown');
    c.frame(IDLE, 'P1');
    expect(c.phase()).toBe('active');
  });
});

describe('turn phase: each outcome, with its rule (statecharts.md §5)', () => {
  const outcome = (name: string, rule: string, at: number) => ({
    type: 'outcome',
    outcome: name,
    turnId: 'u1',
    source: 'explicit_input',
    startedAt: 1,
    at,
    rule,
  });

  it('(b) interrupted', () => {
    const c = workedTurn();
    c.frame({ interrupted: true }, 'P0 > prompt ⎿ Interrupted');
    expect(c.outcomes()).toEqual([outcome('evt_interrupted', 'b_interrupted', 2)]);
    expect(c.phase()).toBe('ready');
  });

  it('(b) withdrawn: it worked, then its prompt came back as a draft over the old transcript', () => {
    const c = workedTurn();
    c.frame(DRAFT, 'P0');
    expect(c.outcomes()).toEqual([outcome('evt_interrupted', 'b_turn_withdrawn', 2)]);
    expect(c.phase()).toBe('ready');
  });

  it('not withdrawn when the old transcript comes back without a draft', () => {
    const c = workedTurn();
    c.frame(IDLE, 'P0');
    expect(c.outcomes()).toEqual([]);
    expect(c.phase()).toBe('active');
  });

  it('(c) known failure', () => {
    const c = workedTurn();
    c.frame({ knownFailure: FAILURE }, 'P0 > prompt API Error');
    expect(c.outcomes()).toEqual([outcome('evt_known_failure', 'c_known_failure', 2)]);
    expect(c.phase()).toBe('ready');
  });

  it('(e) success: settled with the ready posture → ready', () => {
    const c = workedTurn();
    c.frame(SUCCESS, 'reply');
    c.elapse();
    expect(c.outcomes()).toEqual([outcome('evt_success_settled', 'e_success_settled', 2.5)]);
    expect(c.phase()).toBe('ready');
    expect(c.actor.getSnapshot().context.current).toBeNull();
  });

  it('(e) success: settled without the ready posture → unknown', () => {
    const c = workedTurn();
    c.frame({ ...SUCCESS, readyPosture: 'no' }, 'reply');
    c.elapse();
    expect(c.outcomes()).toHaveLength(1);
    expect(c.phase()).toBe('unknown');
  });
});

describe('turn phase: markers with no turn open', () => {
  it('an outcome marker with no turn: phase ready, no outcome, whatever the posture', () => {
    const c = chart();
    c.frame({ interrupted: true, readyPosture: 'no' }, 'old ⎿ Interrupted');
    expect(c.phase()).toBe('ready');
    expect(c.emitted).toEqual([]);
  });

  it('(a) a stale marker under a draft: the idle phase (unknown without the ready posture)', () => {
    const c = chart();
    c.frame({ ...DRAFT, interrupted: true, readyPosture: 'no' }, 'old ⎿ Interrupted');
    expect(c.phase()).toBe('unknown');
    c.frame({ ...DRAFT, knownFailure: FAILURE, readyPosture: 'yes' }, 'old API Error');
    expect(c.phase()).toBe('ready');
    expect(c.emitted).toEqual([]);
  });

  it('(a) needs input being accepted as well as edited', () => {
    const c = chart();
    c.frame({ ...DRAFT, acceptingInput: 'no', interrupted: true, readyPosture: 'no' }, 'old');
    // Not a draft the user is typing: the marker rule applies.
    expect(c.phase()).toBe('ready');
  });

  it('a success candidate under a draft with no turn follows the idle phase', () => {
    const c = chart();
    c.frame({ ...SUCCESS, ...DRAFT }, 'old reply');
    expect(c.phase()).toBe('ready');
    expect(c.emitted).toEqual([]);
  });
});

describe('turn phase: the settle window (statecharts.md §3)', () => {
  it('a cancel is requested only for a window that runs', () => {
    const c = workedTurn();
    c.frame(ACTIVE, 'P0 > prompt …');
    c.frame(IDLE, 'P1');
    expect(c.of('settle_window.cancel')).toEqual([]);
    c.frame(SUCCESS, 'reply');
    c.frame(ACTIVE, 'reply …');
    expect(c.of('settle_window.cancel')).toHaveLength(1);
  });

  it('an identical candidate keeps it; after a draft cancelled it, the same candidate restarts it', () => {
    const c = workedTurn();
    c.frame(SUCCESS, 'reply');
    c.frame(SUCCESS, 'reply');
    expect(c.of('settle_window.start')).toHaveLength(1);
    c.frame({ ...SUCCESS, ...DRAFT }, 'reply');
    expect(c.of('settle_window.cancel')).toHaveLength(1);
    c.frame(SUCCESS, 'reply');
    expect(c.of('settle_window.start')).toHaveLength(2);
  });

  it('a window that elapses with no turn open reports nothing', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.elapse();
    expect(c.actor.getSnapshot().status).toBe('active');
    expect(c.emitted).toEqual([]);
    expect(c.phase()).toBe('ready');
  });
});
