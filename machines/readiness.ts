import { setup } from 'xstate';

/** Events of the readiness chart (statecharts.md §1). */
export type ReadinessEvent =
  | { type: 'evt_submit_ready' }
  | { type: 'evt_known_nonready' }
  | { type: 'evt_operator_blocked' }
  | { type: 'evt_surface_unsupported_or_disconnected' }
  | { type: 'evt_unknown_for_stall' }
  | { type: 'evt_unknown_timeout' }
  | { type: 'evt_stalled_recovered_to_waiting' }
  | { type: 'evt_stalled_recovered_to_submit_ready' }
  | { type: 'evt_stalled_recovered_to_blocked' };

export interface ReadinessInput {
  /** Policy: a stalled surface counts as failed. */
  stalledIsTerminal?: boolean;
}

/**
 * Readiness: is it safe to type a prompt? Pre-submit, continuous. Timers arrive as events
 * (`evt_unknown_timeout`) from the kernel's driver; the machine never reads a clock.
 */
export const readinessMachine = setup({
  types: {
    context: {} as { stalledIsTerminal: boolean },
    input: {} as ReadinessInput,
    events: {} as ReadinessEvent,
  },
  guards: {
    stalled_is_terminal: ({ context }) => context.stalledIsTerminal,
  },
}).createMachine({
  id: 'readiness',
  initial: 'waiting',
  context: ({ input }) => ({ stalledIsTerminal: input?.stalledIsTerminal ?? false }),
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
      on: {
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
