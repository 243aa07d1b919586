import type { Observation } from '../schemas/observation.js';
import type { ReadinessEvent } from '../../machines/readiness.js';
import type { CompletionEvent } from '../../machines/completion.js';
import type { Evidence } from './evidence.js';

/** The five classes of statecharts.md §1/§2, in priority order. */
export type SurfaceClass =
  | 'unsupported_or_disconnected'
  | 'operator_blocked'
  | 'unknown_for_stall'
  | 'working'
  | 'submit_ready'
  | 'other';

type ClassifiedObservation = Pick<Observation, 'availability' | 'businessState' | 'inputMode'>;

/** First match wins; shared by readiness and completion. */
export function classifySurface(obs: ClassifiedObservation): SurfaceClass {
  if (obs.availability === 'unsupported' || obs.availability === 'disconnected') {
    return 'unsupported_or_disconnected';
  }
  if (obs.availability === 'supported' && obs.businessState === 'awaiting_operator') {
    return 'operator_blocked';
  }
  if (
    obs.availability === 'unknown' ||
    (obs.availability === 'supported' && obs.businessState === 'unknown')
  ) {
    return 'unknown_for_stall';
  }
  if (obs.businessState === 'working') return 'working';
  if (obs.businessState === 'idle' && obs.inputMode === 'freeform') return 'submit_ready';
  return 'other';
}

/** Readiness event for one observation, given the state it arrives in. */
export function classifyReadiness(
  obs: ClassifiedObservation,
  state: string,
): ReadinessEvent['type'] {
  const fromStalled = state === 'stalled';
  switch (classifySurface(obs)) {
    case 'unsupported_or_disconnected':
      return 'evt_surface_unsupported_or_disconnected';
    case 'operator_blocked':
      return fromStalled ? 'evt_stalled_recovered_to_blocked' : 'evt_operator_blocked';
    case 'unknown_for_stall':
      return 'evt_unknown_for_stall';
    case 'submit_ready':
      return fromStalled ? 'evt_stalled_recovered_to_submit_ready' : 'evt_submit_ready';
    case 'working':
    case 'other':
      return fromStalled ? 'evt_stalled_recovered_to_waiting' : 'evt_known_nonready';
  }
}

/**
 * Completion event for one observation, given the turn's evidence (already including this
 * observation) and the state it arrives in.
 */
export function classifyCompletion(
  obs: ClassifiedObservation,
  evidence: Evidence,
  state: string,
): CompletionEvent['type'] {
  const fromUnknown = state === 'unknown';
  const fromStalled = state === 'stalled';
  const recovering = fromUnknown || fromStalled;
  const cls = classifySurface(obs);
  switch (cls) {
    case 'unsupported_or_disconnected':
      return 'evt_surface_unsupported_or_disconnected';
    case 'operator_blocked':
      return fromStalled ? 'evt_stalled_recovered_to_blocked' : 'evt_operator_blocked';
    case 'unknown_for_stall':
      return 'evt_unknown_for_stall';
    case 'working':
      return recovering ? 'evt_stalled_recovered_to_working' : 'evt_working_seen';
    default:
      if (cls === 'submit_ready' && (evidence.sawWorking || evidence.sawProjectionChange)) {
        return recovering ? 'evt_stalled_recovered_to_candidate' : 'evt_submit_ready_with_activity';
      }
      if (fromStalled) return 'evt_stalled_recovered_to_waiting';
      if (state === 'candidate_complete') return 'evt_state_signature_changed';
      return 'evt_known_noncandidate';
  }
}

/** True for the completion events that mean "this observation is a completion candidate". */
export function isCandidateEvent(type: CompletionEvent['type']): boolean {
  return type === 'evt_submit_ready_with_activity' || type === 'evt_stalled_recovered_to_candidate';
}
