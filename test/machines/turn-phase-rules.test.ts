import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { screenPrint } from '../../machines/turnPhase.frames.js';
import {
  turnPhaseMachine,
  type FrameSignals,
  type TurnPhaseEmitted,
  type TurnPhaseInput,
} from '../../machines/turnPhase.js';

/** An idle prompt with nothing pending. */
const IDLE: FrameSignals = {
  acceptingInput: 'yes',
  editingInput: 'no',
  readyPosture: 'yes',
  activeReasons: [],
  interrupted: false,
  knownFailure: null,
  successCandidate: false,
  ambiguous: false,
  chatContext: 'current',
};
const ACTIVE: Partial<FrameSignals> = { activeReasons: ['spinner'] };
const SUCCESS: Partial<FrameSignals> = { successCandidate: true };
const DRAFT: Partial<FrameSignals> = { editingInput: 'yes' };
const FAILURE = { kind: 'server_error', message: 'API Error: 500' };

/**
 * The turn-phase chart alone, fed frames half a second apart; the test plays the driver (it
 * sends `settle_window_elapsed` itself) and reads every request and outcome the chart emits.
 */
function chart(input?: TurnPhaseInput) {
  // No input: the chart's defaults.
  const actor = createActor(turnPhaseMachine, { input } as { input: TurnPhaseInput });
  const emitted: TurnPhaseEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  let t = 0;
  let n = 0;
  const c = {
    actor,
    emitted,
    get t() {
      return t;
    },
    phase: () => String(actor.getSnapshot().value),
    frame(signals: Partial<FrameSignals>, projection: string, available = true) {
      t += 0.5;
      actor.send({
        type: 'frame',
        t,
        available,
        signals: { ...IDLE, ...signals },
        projection,
        inferredTurnId: `inferred-${++n}`,
      });
    },
    arm(turnId: string) {
      t += 0.5;
      actor.send({ type: 'turn_armed', t, turnId });
    },
    elapse() {
      t += 0.5;
      actor.send({ type: 'settle_window_elapsed', t });
    },
    of: <K extends TurnPhaseEmitted['type']>(type: K) =>
      emitted.filter((e): e is Extract<TurnPhaseEmitted, { type: K }> => e.type === type),
    outcomes: () => c.of('outcome'),
  };
  return c;
}

/** A chart with turn `u1` armed over transcript P0 (at t = 1), which has worked since. */
function workedTurn(settleSeconds = 1) {
  const c = chart({ settleSeconds });
  c.frame(IDLE, 'P0');
  c.arm('u1');
  c.frame(ACTIVE, 'P0 > prompt');
  expect(c.phase()).toBe('active');
  return c;
}

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

describe('turn phase: a settled success rewritten within one settle window is retracted', () => {
  /** Turn u1 settled on reply R1 at t = 2.5, ready. */
  const settled = () => {
    const c = workedTurn();
    c.frame(SUCCESS, 'R1');
    c.elapse();
    expect(c.outcomes()).toHaveLength(1);
    return c;
  };

  it('the same reply again is no rewrite', () => {
    const c = settled();
    c.frame(SUCCESS, 'R1');
    expect(c.outcomes()).toHaveLength(1);
  });

  it('a rewrite exactly one window later retracts it and the same turn settles again', () => {
    const c = settled();
    c.actor.send({
      type: 'frame',
      t: 3.5,
      available: true,
      signals: { ...IDLE, ...SUCCESS },
      projection: 'R2',
      inferredTurnId: 'x',
    });
    expect(c.outcomes().at(-1)).toEqual({
      type: 'outcome',
      outcome: 'evt_success_retracted',
      turnId: 'u1',
      source: 'explicit_input',
      startedAt: 1,
      at: 3.5,
      rule: 'retract_rewritten',
    });
    // The turn goes on: the rewritten reply is its candidate now.
    expect(c.of('settle_window.start')).toHaveLength(2);
    c.actor.send({ type: 'settle_window_elapsed', t: 4.5 });
    expect(c.outcomes().at(-1)).toMatchObject({ outcome: 'evt_success_settled', turnId: 'u1' });
  });

  it('a rewrite later than one window is not retracted', () => {
    const c = settled();
    c.actor.send({
      type: 'frame',
      t: 3.75,
      available: true,
      signals: { ...IDLE, ...SUCCESS },
      projection: 'R2',
      inferredTurnId: 'x',
    });
    expect(c.outcomes()).toHaveLength(1);
  });

  it('the reopened turn never worked: its old transcript back under a draft is no withdrawal', () => {
    const c = settled();
    c.frame(IDLE, 'R2');
    expect(c.outcomes()).toHaveLength(2);
    c.frame(DRAFT, 'R1');
    expect(c.outcomes()).toHaveLength(2);
    expect(c.actor.getSnapshot().context.current?.id).toBe('u1');
  });
});

describe('turn phase: prompts typed by hand', () => {
  it('a submitted draft whose outcome shows is a turn from when it was submitted', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P0 > typed');
    c.frame(SUCCESS, 'P0 > typed reply');
    expect(c.of('turn_started')).toEqual([
      {
        type: 'turn_started',
        turn: { id: 'inferred-3', source: 'surface_inference', startedAt: 1 },
      },
    ]);
    expect(c.of('settle_window.start')).toHaveLength(1);
  });

  it('no turn while nothing shows its outcome', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P0 > typed');
    c.frame(IDLE, 'P0 > typed');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a new draft drops the prompt pending', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(DRAFT, 'P1');
    c.frame(SUCCESS, 'P1');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a transcript that changes with no draft before is no prompt typed by hand', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(SUCCESS, 'P2');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a transcript back to before the draft left drops the prompt pending: no turn, no outcome', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(SUCCESS, 'P0');
    expect(c.of('turn_started')).toEqual([]);
    expect(c.of('settle_window.start')).toEqual([]);
    expect(c.phase()).toBe('ready');
  });

  it('a draft cleared over an old marker, then a torn frame, infers no turn that cannot end', () => {
    // Qwen Code puts an interrupted prompt back in its box; paneward clears it. A frame caught
    // mid-redraw (the marker missing) and then the whole screen again must not read as a prompt
    // typed by hand whose outcome is the old marker: that turn would have no evidence of its own.
    const c = chart();
    const INTERRUPTED = { interrupted: true };
    c.frame(IDLE, 'P0');
    c.arm('u1');
    c.frame(ACTIVE, 'P0 > prompt');
    c.frame({ ...INTERRUPTED, editingInput: 'yes' }, 'P0 > prompt cancelled');
    expect(c.outcomes()).toMatchObject([{ outcome: 'evt_interrupted', turnId: 'u1' }]);
    c.frame(IDLE, 'P0 > prompt');
    c.frame(INTERRUPTED, 'P0 > prompt cancelled');
    c.frame(INTERRUPTED, 'P0 > prompt cancelled');
    expect(c.of('turn_started').map((e) => e.turn.id)).toEqual(['u1']);
    expect(c.phase()).toBe('ready');
  });

  it('a draft typed and sent while a turn is open belongs to that turn', () => {
    const c = workedTurn();
    c.frame(DRAFT, 'P0 > prompt reply');
    c.frame(SUCCESS, 'P0 > prompt reply > more');
    expect(c.of('turn_started').map((e) => e.turn.id)).toEqual(['u1']);
    expect(c.of('settle_window.start')).toHaveLength(1);
    c.elapse();
    expect(c.outcomes()).toMatchObject([{ outcome: 'evt_success_settled', turnId: 'u1' }]);
  });
});

describe('turn phase: what the chart keeps of screens gone by', () => {
  it('lets the armed screen go once the projection changed, and keeps its print for a withdrawal', () => {
    const c = chart();
    const armed = 'P0 '.repeat(500);
    c.frame(IDLE, armed);
    c.arm('u1');
    expect(c.actor.getSnapshot().context.evidence).toMatchObject({
      projectionAtArm: armed,
      printAtArm: null,
    });
    c.frame(ACTIVE, `${armed} > prompt`);
    const ev = c.actor.getSnapshot().context.evidence!;
    expect(ev.projectionAtArm).toBeNull();
    expect(ev.printAtArm).toBe(screenPrint(armed));
    expect(JSON.stringify(ev)).not.toContain('P0');
    // A copy of the armed screen (another string, the same text) under a draft: withdrawn.
    c.frame(DRAFT, armed.slice(0, 3) + armed.slice(3));
    expect(c.outcomes()).toEqual([
      expect.objectContaining({ outcome: 'evt_interrupted', rule: 'b_turn_withdrawn' }),
    ]);
  });

  it('keeps a settled success as a print, and still tells its rewrite', () => {
    const c = workedTurn();
    const reply = 'P0 > prompt reply '.repeat(100);
    c.frame(SUCCESS, reply);
    c.elapse();
    const settled = c.actor.getSnapshot().context.settled!;
    expect(settled.print).toBe(screenPrint(reply));
    expect(JSON.stringify(c.actor.getSnapshot().context.settled)).not.toContain('reply');
    c.frame(IDLE, reply);
    expect(c.outcomes()).toHaveLength(1);
    c.frame(IDLE, `${reply}more`);
    expect(c.outcomes().map((o) => o.outcome)).toEqual([
      'evt_success_settled',
      'evt_success_retracted',
    ]);
  });

  it('prints equal texts alike and tells apart texts that differ in one place', () => {
    const base = 'x'.repeat(7200);
    expect(screenPrint(base)).toBe(screenPrint('x'.repeat(7200)));
    const prints = new Set([screenPrint(base), screenPrint('')]);
    for (let i = 0; i < base.length; i += 37) {
      for (const ch of ['y', '\u2500', 'X']) {
        prints.add(screenPrint(base.slice(0, i) + ch + base.slice(i + 1)));
      }
    }
    // Two swapped characters, and the same text one shorter.
    prints.add(screenPrint('ab' + base.slice(2)));
    prints.add(screenPrint('ba' + base.slice(2)));
    prints.add(screenPrint(base.slice(1)));
    expect(prints.size).toBe(2 + Math.ceil(base.length / 37) * 3 + 3);
  });
});
