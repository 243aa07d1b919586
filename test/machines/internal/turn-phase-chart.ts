// The turn-phase chart of the rule tests, driven frame by frame, and the frames they feed it.
import { expect } from 'vitest';
import { createActor } from 'xstate';
import {
  turnPhaseMachine,
  type FrameSignals,
  type TurnPhaseEmitted,
  type TurnPhaseInput,
} from '../../../machines/turnPhase.js';

/** An idle prompt with nothing pending. */
export const IDLE: FrameSignals = {
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
export const ACTIVE: Partial<FrameSignals> = { activeReasons: ['spinner'] };
export const SUCCESS: Partial<FrameSignals> = { successCandidate: true };
export const DRAFT: Partial<FrameSignals> = { editingInput: 'yes' };
export const FAILURE = { kind: 'server_error', message: 'API Error: 500' };

/**
 * The turn-phase chart alone, fed frames half a second apart; the test plays the driver (it
 * sends `settle_window_elapsed` itself) and reads every request and outcome the chart emits.
 */
export function chart(input?: TurnPhaseInput) {
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
export function workedTurn(settleSeconds = 1) {
  const c = chart({ settleSeconds });
  c.frame(IDLE, 'P0');
  c.arm('u1');
  c.frame(ACTIVE, 'P0 > prompt');
  expect(c.phase()).toBe('active');
  return c;
}
