import { emit, raise, setup } from 'xstate';
import {
  isOperatorBlocked,
  isSubmitReady,
  isUnknownForStall,
  isUnsupportedOrDisconnected,
  type SurfaceObservation,
} from './surface.js';

/** Events of the readiness chart (docs/statecharts.md §1): one raw observation, or a named event. */
export type ReadinessEvent =
  | { type: 'observation'; observation: SurfaceObservation }
  | { type: 'evt_submit_ready' }
  | { type: 'evt_known_nonready' }
  | { type: 'evt_operator_blocked' }
  | { type: 'evt_surface_unsupported_or_disconnected' }
  | { type: 'evt_unknown_for_stall' }
  | { type: 'evt_unknown_timeout' }
  | { type: 'evt_stalled_recovered_to_waiting' }
  | { type: 'evt_stalled_recovered_to_submit_ready' }
  | { type: 'evt_stalled_recovered_to_blocked' };

/** What the chart asks of its driver: the unknown → stalled timer (docs/statecharts.md §3). */
export type StallTimerRequest =
  { type: 'stall_timer.start'; seconds: number } | { type: 'stall_timer.cancel' };

export interface ReadinessInput {
  /** Policy: a stalled surface counts as failed. */
  stalledIsTerminal?: boolean;
  stallTimeoutSeconds?: number;
  /** `continuous`: the deadline is fixed when the unknown run starts; `gap`: every unknown observation re-arms it. */
  stallMode?: 'continuous' | 'gap';
}

export interface ReadinessContext {
  stalledIsTerminal: boolean;
  stallTimeoutSeconds: number;
  stallMode: 'continuous' | 'gap';
}

/** A rule on the observation an event carries: the guards are bound to `observation` only. */
const when =
  (rule: (o: SurfaceObservation) => boolean) =>
  ({ event }: { event: ReadinessEvent }): boolean =>
    rule((event as Extract<ReadinessEvent, { type: 'observation' }>).observation);

/**
 * Readiness: is it safe to type a prompt? Pre-submit and continuous. Each `observation` is
 * classified by the guards below, first match wins (docs/statecharts.md §1 table), into the named
 * event of the chart; from `stalled` the recovery variants are raised. The machine never reads
 * a clock: the unknown → stalled timer runs in the driver, which the chart starts and cancels
 * (`stall_timer.*` emitted events) and which answers with `evt_unknown_timeout`.
 */
export const readinessMachine = setup({
  types: {
    context: {} as ReadinessContext,
    input: {} as ReadinessInput,
    events: {} as ReadinessEvent,
    emitted: {} as StallTimerRequest,
  },
  guards: {
    surface_unsupported_or_disconnected: when(isUnsupportedOrDisconnected),
    operator_blocked: when(isOperatorBlocked),
    unknown_for_stall: when(isUnknownForStall),
    submit_ready: when(isSubmitReady),
    /** In `gap` mode every unknown observation re-arms the stall timer. */
    stall_gap_restarts: ({ context, event }) =>
      context.stallMode === 'gap' && when(isUnknownForStall)({ event }),
    stalled_is_terminal: ({ context }) => context.stalledIsTerminal,
  },
  actions: {
    start_stall_timer: emit(({ context }) => ({
      type: 'stall_timer.start' as const,
      seconds: context.stallTimeoutSeconds,
    })),
    cancel_stall_timer: emit({ type: 'stall_timer.cancel' as const }),
  },
}).createMachine({
  id: 'readiness',
  initial: 'waiting',
  context: ({ input }) => ({
    stalledIsTerminal: input?.stalledIsTerminal ?? false,
    stallTimeoutSeconds: input?.stallTimeoutSeconds ?? 30,
    stallMode: input?.stallMode ?? 'continuous',
  }),
  on: {
    observation: [
      {
        guard: 'surface_unsupported_or_disconnected',
        actions: raise({ type: 'evt_surface_unsupported_or_disconnected' }),
      },
      { guard: 'operator_blocked', actions: raise({ type: 'evt_operator_blocked' }) },
      { guard: 'unknown_for_stall', actions: raise({ type: 'evt_unknown_for_stall' }) },
      { guard: 'submit_ready', actions: raise({ type: 'evt_submit_ready' }) },
      { actions: raise({ type: 'evt_known_nonready' }) },
    ],
  },
  states: {
    waiting: {
      on: {
        evt_submit_ready: { target: 'ready' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    unknown: {
      entry: 'start_stall_timer',
      exit: 'cancel_stall_timer',
      on: {
        observation: { guard: 'stall_gap_restarts', actions: 'start_stall_timer' },
        evt_known_nonready: { target: 'waiting' },
        evt_submit_ready: { target: 'ready' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_timeout: { target: 'stalled' },
      },
    },
    stalled: {
      always: { guard: 'stalled_is_terminal', target: 'failed' },
      on: {
        observation: [
          {
            guard: 'surface_unsupported_or_disconnected',
            actions: raise({ type: 'evt_surface_unsupported_or_disconnected' }),
          },
          {
            guard: 'operator_blocked',
            actions: raise({ type: 'evt_stalled_recovered_to_blocked' }),
          },
          // Still unknown: stays stalled.
          { guard: 'unknown_for_stall' },
          {
            guard: 'submit_ready',
            actions: raise({ type: 'evt_stalled_recovered_to_submit_ready' }),
          },
          { actions: raise({ type: 'evt_stalled_recovered_to_waiting' }) },
        ],
        evt_stalled_recovered_to_waiting: { target: 'waiting' },
        evt_stalled_recovered_to_submit_ready: { target: 'ready' },
        evt_stalled_recovered_to_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
      },
    },
    ready: {
      on: {
        evt_known_nonready: { target: 'waiting' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    blocked: {
      on: {
        evt_submit_ready: { target: 'ready' },
        evt_known_nonready: { target: 'waiting' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    failed: {
      on: {
        evt_submit_ready: { target: 'ready' },
        evt_known_nonready: { target: 'waiting' },
        evt_operator_blocked: { target: 'blocked' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
  },
});

export type ReadinessState = 'waiting' | 'unknown' | 'stalled' | 'ready' | 'blocked' | 'failed';
