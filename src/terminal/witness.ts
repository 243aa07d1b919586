/**
 * The completion witness's types and folds live with its chart (machines/witness.ts); the
 * session record's and hooks' events are of the shapes it folds.
 */
export {
  DEFAULT_WITNESS_WINDOW_SECONDS,
  RECORD_TURN_SLACK_SECONDS,
  foldHookEvent,
  foldObserverEnding,
  foldRecordEvent,
  markerTells,
  outcomeEventOf,
  recordTells,
  type CompletionAuthority,
  type MarkerEvidence,
  type MarkerSource,
  type ObserverEnding,
  type OutcomeWitness,
  type RecordTurn,
  type WitnessConfig,
  type WitnessDisagreement,
} from '../../machines/witness.js';
