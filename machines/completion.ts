import { assign, emit, enqueueActions, raise, setup } from 'xstate';
import type { StallTimerRequest } from './readiness.js';
import {
  accumulateEvidence,
  candidateSignature,
  hasActivity,
  initialEvidence,
  isOperatorBlocked,
  isSubmitReady,
  isUnknownForStall,
  isUnsupportedOrDisconnected,
  isWorking,
  type Evidence,
  type SurfaceObservation,
} from './surface.js';

/** Events of the completion chart (docs/statecharts.md §2): one raw observation, or a named event. */
export type CompletionEvent =
  | { type: 'observation'; observation: SurfaceObservation }
  | { type: 'evt_working_seen' }
  | { type: 'evt_submit_ready_with_activity' }
  | { type: 'evt_known_noncandidate' }
  | { type: 'evt_operator_blocked' }
  | { type: 'evt_surface_unsupported_or_disconnected' }
  | { type: 'evt_unknown_for_stall' }
  | { type: 'evt_unknown_timeout' }
  | { type: 'evt_stability_window_elapsed' }
  | { type: 'evt_completion_observer_payload'; payload?: unknown }
  | { type: 'evt_state_signature_changed' }
  | { type: 'evt_stalled_recovered_to_waiting' }
  | { type: 'evt_stalled_recovered_to_working' }
  | { type: 'evt_stalled_recovered_to_candidate' }
  | { type: 'evt_stalled_recovered_to_blocked' };

/** What the chart asks of its driver: the stall timer and the stability window (docs/statecharts.md §3). */
export type CompletionTimerRequest =
  | StallTimerRequest
  | { type: 'stability_window.start'; seconds: number }
  | { type: 'stability_window.cancel' };

export interface CompletionInput {
  /** The turn anchor's baseline: the projection when the prompt was submitted. */
  baseline?: string;
  /** Policy: a stalled turn counts as failed. */
  stalledIsTerminal?: boolean;
  stallTimeoutSeconds?: number;
  stallMode?: 'continuous' | 'gap';
  stabilitySeconds?: number;
}

export interface CompletionContext {
  stalledIsTerminal: boolean;
  stallTimeoutSeconds: number;
  stallMode: 'continuous' | 'gap';
  stabilitySeconds: number;
  /** Post-submit evidence, including the latest observation. */
  evidence: Evidence;
  /** Candidate signature of the latest observation. */
  observedSignature: string | null;
  /** The signature the running stability window belongs to. */
  windowSignature: string | null;
  /** The completion observer's payload, once it completed the turn. */
  payload: unknown;
}

/** The observation an event carries: the guards and actions that read it are bound to `observation` only. */
const observed = (event: CompletionEvent): SurfaceObservation =>
  (event as Extract<CompletionEvent, { type: 'observation' }>).observation;

/** Evidence as it stands once `event`'s observation is folded in. */
const evidenceWith = (context: CompletionContext, event: CompletionEvent): Evidence =>
  accumulateEvidence(context.evidence, observed(event));

const when =
  (rule: (o: SurfaceObservation) => boolean) =>
  ({ event }: { event: CompletionEvent }): boolean =>
    rule(observed(event));

/** Submit ready, and the turn has evidence of its own (a ready surface without it never completes). */
const submitReadyWithActivity = ({
  context,
  event,
}: {
  context: CompletionContext;
  event: CompletionEvent;
}): boolean => isSubmitReady(observed(event)) && hasActivity(evidenceWith(context, event));

/**
 * Completion: is this turn finished? One actor per turn, created when a prompt is submitted
 * with the anchor's baseline; it ends in `completed` or `failed`. Each `observation` first
 * folds into the turn's evidence (`note_observation`), then the guards below classify it,
 * first match wins (docs/statecharts.md §2), into the named event of the chart; from `unknown` and
 * `stalled` the recovery variants are raised, from `candidate_complete` a non-candidate is
 * `evt_state_signature_changed`. A candidate with a new signature restarts the stability
 * window; an identical one leaves it running. Timers run in the driver: the chart starts and
 * cancels them (emitted events) and the driver answers with `evt_unknown_timeout` and
 * `evt_stability_window_elapsed`. The pluggable completion observer is the driver's too: it
 * sends `evt_completion_observer_payload`.
 */
export const completionMachine = setup({
  types: {
    context: {} as CompletionContext,
    input: {} as CompletionInput,
    events: {} as CompletionEvent,
    emitted: {} as CompletionTimerRequest,
  },
  guards: {
    surface_unsupported_or_disconnected: when(isUnsupportedOrDisconnected),
    operator_blocked: when(isOperatorBlocked),
    unknown_for_stall: when(isUnknownForStall),
    working: when(isWorking),
    submit_ready_with_activity: submitReadyWithActivity,
    /**
     * The same candidate as the one the stability window runs for: the window keeps running.
     * The window's signature is a candidate's, and the signature holds what makes one (a
     * submit-ready surface, the evidence flags), so an equal signature is a candidate.
     */
    same_candidate: ({ context, event }) =>
      candidateSignature(observed(event), evidenceWith(context, event)) === context.windowSignature,
    stall_gap_restarts: ({ context, event }) =>
      context.stallMode === 'gap' && when(isUnknownForStall)({ event }),
    stalled_is_terminal: ({ context }) => context.stalledIsTerminal,
  },
  actions: {
    note_observation: assign(({ context, event }) => {
      const evidence = evidenceWith(context, event);
      return { evidence, observedSignature: candidateSignature(observed(event), evidence) };
    }),
    start_stall_timer: emit(({ context }) => ({
      type: 'stall_timer.start' as const,
      seconds: context.stallTimeoutSeconds,
    })),
    cancel_stall_timer: emit({ type: 'stall_timer.cancel' as const }),
    start_stability_window: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ windowSignature: context.observedSignature });
      enqueue.emit({ type: 'stability_window.start', seconds: context.stabilitySeconds });
    }),
    cancel_stability_window: enqueueActions(({ enqueue }) => {
      enqueue.assign({ windowSignature: null });
      enqueue.emit({ type: 'stability_window.cancel' });
    }),
    /** On `evt_completion_observer_payload` only. */
    keep_payload: assign({
      payload: ({ event }) =>
        (event as Extract<CompletionEvent, { type: 'evt_completion_observer_payload' }>).payload,
    }),
  },
}).createMachine({
  id: 'completion',
  initial: 'waiting',
  context: ({ input }) => ({
    stalledIsTerminal: input?.stalledIsTerminal ?? false,
    stallTimeoutSeconds: input?.stallTimeoutSeconds ?? 30,
    stallMode: input?.stallMode ?? 'continuous',
    stabilitySeconds: input?.stabilitySeconds ?? 1,
    evidence: initialEvidence(input?.baseline ?? ''),
    observedSignature: null,
    windowSignature: null,
    payload: null,
  }),
  on: {
    observation: [
      {
        guard: 'surface_unsupported_or_disconnected',
        actions: ['note_observation', raise({ type: 'evt_surface_unsupported_or_disconnected' })],
      },
      {
        guard: 'operator_blocked',
        actions: ['note_observation', raise({ type: 'evt_operator_blocked' })],
      },
      {
        guard: 'unknown_for_stall',
        actions: ['note_observation', raise({ type: 'evt_unknown_for_stall' })],
      },
      { guard: 'working', actions: ['note_observation', raise({ type: 'evt_working_seen' })] },
      {
        guard: 'submit_ready_with_activity',
        actions: ['note_observation', raise({ type: 'evt_submit_ready_with_activity' })],
      },
      { actions: ['note_observation', raise({ type: 'evt_known_noncandidate' })] },
    ],
  },
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
      entry: 'start_stability_window',
      exit: 'cancel_stability_window',
      on: {
        observation: [
          {
            guard: 'surface_unsupported_or_disconnected',
            actions: [
              'note_observation',
              raise({ type: 'evt_surface_unsupported_or_disconnected' }),
            ],
          },
          {
            guard: 'operator_blocked',
            actions: ['note_observation', raise({ type: 'evt_operator_blocked' })],
          },
          {
            guard: 'unknown_for_stall',
            actions: ['note_observation', raise({ type: 'evt_unknown_for_stall' })],
          },
          { guard: 'working', actions: ['note_observation', raise({ type: 'evt_working_seen' })] },
          { guard: 'same_candidate', actions: 'note_observation' },
          {
            guard: 'submit_ready_with_activity',
            actions: ['note_observation', 'start_stability_window'],
          },
          { actions: ['note_observation', raise({ type: 'evt_state_signature_changed' })] },
        ],
        evt_stability_window_elapsed: { target: 'completed' },
        evt_completion_observer_payload: { target: 'completed', actions: 'keep_payload' },
        evt_working_seen: { target: 'in_progress' },
        evt_state_signature_changed: { target: 'waiting' },
        evt_operator_blocked: { target: 'blocked' },
        evt_surface_unsupported_or_disconnected: { target: 'failed' },
        evt_unknown_for_stall: { target: 'unknown' },
      },
    },
    unknown: {
      entry: 'start_stall_timer',
      exit: 'cancel_stall_timer',
      on: {
        observation: [
          {
            guard: 'surface_unsupported_or_disconnected',
            actions: [
              'note_observation',
              raise({ type: 'evt_surface_unsupported_or_disconnected' }),
            ],
          },
          {
            guard: 'operator_blocked',
            actions: ['note_observation', raise({ type: 'evt_operator_blocked' })],
          },
          { guard: 'stall_gap_restarts', actions: ['note_observation', 'start_stall_timer'] },
          { guard: 'unknown_for_stall', actions: 'note_observation' },
          {
            guard: 'working',
            actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_working' })],
          },
          {
            guard: 'submit_ready_with_activity',
            actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_candidate' })],
          },
          { actions: ['note_observation', raise({ type: 'evt_known_noncandidate' })] },
        ],
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
        observation: [
          {
            guard: 'surface_unsupported_or_disconnected',
            actions: [
              'note_observation',
              raise({ type: 'evt_surface_unsupported_or_disconnected' }),
            ],
          },
          {
            guard: 'operator_blocked',
            actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_blocked' })],
          },
          // Still unknown: stays stalled.
          { guard: 'unknown_for_stall', actions: 'note_observation' },
          {
            guard: 'working',
            actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_working' })],
          },
          {
            guard: 'submit_ready_with_activity',
            actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_candidate' })],
          },
          { actions: ['note_observation', raise({ type: 'evt_stalled_recovered_to_waiting' })] },
        ],
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
