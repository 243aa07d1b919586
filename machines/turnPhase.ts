import { setup } from 'xstate';

/** Events of the turn-phase chart (statecharts.md §4); the tracker evaluates the guards in words. */
export type TurnPhaseEvent =
  | { type: 'evt_ready_posture' }
  | { type: 'evt_turn_started' }
  | { type: 'evt_turn_finished' }
  | { type: 'evt_posture_lost' };

/** Turn phase: is the agent between turns (`ready`), in one (`active`), or can we not tell? */
export const turnPhaseMachine = setup({
  types: {
    events: {} as TurnPhaseEvent,
  },
}).createMachine({
  id: 'turnPhase',
  initial: 'unknown',
  states: {
    unknown: {
      on: {
        evt_ready_posture: { target: 'ready' },
        evt_turn_started: { target: 'active' },
      },
    },
    ready: {
      on: {
        evt_turn_started: { target: 'active' },
        evt_posture_lost: { target: 'unknown' },
      },
    },
    active: {
      on: {
        evt_turn_finished: { target: 'ready' },
        evt_posture_lost: { target: 'unknown' },
      },
    },
  },
});

export type TurnPhaseState = 'unknown' | 'ready' | 'active';
