import { setup } from 'xstate';

/** Events of the completion chart (statecharts.md §2). */
export type CompletionEvent =
  | { type: 'evt_working_seen' }
  | { type: 'evt_submit_ready_with_activity' }
  | { type: 'evt_known_noncandidate' }
  | { type: 'evt_operator_blocked' }
  | { type: 'evt_surface_unsupported_or_disconnected' }
  | { type: 'evt_unknown_for_stall' }
  | { type: 'evt_unknown_timeout' }
  | { type: 'evt_stability_window_elapsed' }
  | { type: 'evt_completion_observer_payload' }
  | { type: 'evt_state_signature_changed' }
  | { type: 'evt_stalled_recovered_to_waiting' }
  | { type: 'evt_stalled_recovered_to_working' }
  | { type: 'evt_stalled_recovered_to_candidate' }
  | { type: 'evt_stalled_recovered_to_blocked' };

export interface CompletionInput {
  /** Policy: a stalled turn counts as failed. */
  stalledIsTerminal?: boolean;
}

/**
 * Completion: is this turn finished? One actor per turn, created when a prompt is submitted;
 * it ends in `completed` or `failed`. Timers (stall, stability window) arrive as events.
 */
export const completionMachine = setup({
  types: {
    context: {} as { stalledIsTerminal: boolean },
    input: {} as CompletionInput,
    events: {} as CompletionEvent,
  },
  guards: {
    stalled_is_terminal: ({ context }) => context.stalledIsTerminal,
  },
}).createMachine({
  id: 'completion',
  initial: 'waiting',
  context: ({ input }) => ({ stalledIsTerminal: input?.stalledIsTerminal ?? false }),
  states: {
    waiting: {
      on: {
        evt_working_seen: { target: 'in_progress' },
        evt_submit_ready_with_activity: { target: 'candidate_complete' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    in_progress: {
      on: {
        evt_submit_ready_with_activity: { target: 'candidate_complete' },
        evt_known_noncandidate: { target: 'waiting' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    candidate_complete: {
      on: {
        evt_stability_window_elapsed: { target: 'completed' },
        evt_completion_observer_payload: { target: 'completed' },
        evt_working_seen: { target: 'in_progress' },
        evt_state_signature_changed: { target: 'waiting' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    unknown: {
      on: {
        evt_known_noncandidate: { target: 'waiting' },
        evt_stalled_recovered_to_working: { target: 'in_progress' },
        evt_stalled_recovered_to_candidate: { target: 'candidate_complete' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_timeout: { target: 'stalled' },
      },
    },
    stalled: {
      always: { guard: 'stalled_is_terminal', target: 'failed' },
      on: {
        evt_stalled_recovered_to_waiting: { target: 'waiting' },
        evt_stalled_recovered_to_working: { target: 'in_progress' },
        evt_stalled_recovered_to_candidate: { target: 'candidate_complete' },
        evt_stalled_recovered_to_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
      },
    },
    blocked: {
      on: {
        evt_working_seen: { target: 'in_progress' },
        evt_submit_ready_with_activity: { target: 'candidate_complete' },
        evt_known_noncandidate: { target: 'waiting' },
        evt_unknown_for_stall: { target: 'unknown' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type CompletionState =
  | 'waiting'
  | 'in_progress'
  | 'candidate_complete'
  | 'unknown'
  | 'stalled'
  | 'completed'
  | 'blocked'
  | 'failed';
