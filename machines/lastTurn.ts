import { assign, setup } from 'xstate';

import type { TurnSource } from './turnPhase.js';
export type { TurnSource };

/** Who the outcome belongs to: the turn, how it was started, and when it ended. */
export interface OutcomeFacts {
  turnId: string;
  source: TurnSource;
  /** Observation time (seconds) of the outcome. */
  at: number;
}

/** Events of the last-turn chart (docs/statecharts.md §5). */
export type LastTurnEvent =
  | ({ type: 'evt_success_settled' } & OutcomeFacts)
  | ({ type: 'evt_interrupted' } & OutcomeFacts)
  | ({ type: 'evt_known_failure' } & OutcomeFacts)
  | ({ type: 'evt_success_retracted' } & OutcomeFacts);

export interface LastTurnContext {
  turnId: string | null;
  source: TurnSource | 'none';
  at: number | null;
}

/** The result of the last finished turn. Sticky: a new turn does not reset it. */
export const lastTurnMachine = setup({
  types: {
    context: {} as LastTurnContext,
    events: {} as LastTurnEvent,
  },
  actions: {
    record_outcome: assign(({ event }) => ({
      turnId: event.turnId,
      source: event.source,
      at: event.at,
    })),
    clear_outcome: assign(() => ({ turnId: null, source: 'none' as const, at: null })),
  },
}).createMachine({
  id: 'lastTurn',
  initial: 'none',
  context: { turnId: null, source: 'none', at: null },
  on: {
    evt_success_settled: { target: '.success', actions: 'record_outcome' },
    evt_interrupted: { target: '.interrupted', actions: 'record_outcome' },
    evt_known_failure: { target: '.known_failure', actions: 'record_outcome' },
  },
  states: {
    none: {},
    success: {
      on: {
        evt_success_retracted: { target: 'none', actions: 'clear_outcome' },
      },
    },
    interrupted: {},
    known_failure: {},
  },
});

export type LastTurnState = 'none' | 'success' | 'interrupted' | 'known_failure';
