/**
 * What the readiness and completion charts read from one observation, and the pure rules they
 * share: the classification table of docs/statecharts.md §1/§2, projection normalisation, post-submit
 * evidence and the candidate signature. Imports nothing, so the machines stay pure.
 */

export type Availability = 'supported' | 'unsupported' | 'disconnected' | 'unknown';
export type BusinessState = 'idle' | 'working' | 'awaiting_operator' | 'unknown';
export type InputMode = 'freeform' | 'modal' | 'closed' | 'unknown';

/** One poll of one terminal after parsing (docs/statecharts.md vocabulary). */
export interface SurfaceObservation {
  availability: Availability;
  businessState: BusinessState;
  inputMode: InputMode;
  uiContext: string;
  projectionText: string;
  baselineInvalidated: boolean;
}

/** The agent's surface cannot be read as a supported one: rule 1. */
export const isUnsupportedOrDisconnected = (o: SurfaceObservation): boolean =>
  o.availability === 'unsupported' || o.availability === 'disconnected';

/** A prompt waits for the operator: rule 2. */
export const isOperatorBlocked = (o: SurfaceObservation): boolean =>
  o.availability === 'supported' && o.businessState === 'awaiting_operator';

/** Nothing known: rule 3 (a known business state with an unknown input mode is not this). */
export const isUnknownForStall = (o: SurfaceObservation): boolean =>
  o.availability === 'unknown' || (o.availability === 'supported' && o.businessState === 'unknown');

/** The agent works (any input mode): completion rule 4, read after rules 1–3. */
export const isWorking = (o: SurfaceObservation): boolean => o.businessState === 'working';

/** Typing a prompt now would submit it: readiness rule 4. */
export const isSubmitReady = (o: SurfaceObservation): boolean =>
  o.availability === 'supported' && o.businessState === 'idle' && o.inputMode === 'freeform';

/** Split lines, right-trim each, join with `\n`, trim the whole (docs/statecharts.md §2). */
export function normalizeProjection(text: string): string {
  // One frame's projection is normalised by the pipeline, the turn driver and the completion
  // chart alike: the last one is kept.
  if (text === lastProjection.text) return lastProjection.key;
  const key = text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
  lastProjection.text = text;
  lastProjection.key = key;
  return key;
}

const lastProjection = { text: '', key: '' };

/** Post-submit evidence of one turn; both flags are sticky (docs/statecharts.md §2). */
export interface Evidence {
  sawWorking: boolean;
  sawProjectionChange: boolean;
  /** The normalised baseline taken when the turn was armed. */
  baselineKey: string;
  /**
   * The latest observation's normalised projection or, once an observation invalidated the
   * baseline, that observation's for the rest of the turn.
   */
  projectionKey: string;
  /** True once an observation invalidated the baseline and froze the key. */
  keyFrozen: boolean;
}

export function initialEvidence(baseline: string): Evidence {
  const key = normalizeProjection(baseline);
  return {
    sawWorking: false,
    sawProjectionChange: false,
    baselineKey: key,
    projectionKey: key,
    keyFrozen: false,
  };
}

/** Folds one observation into the evidence. */
export function accumulateEvidence(
  ev: Evidence,
  o: Pick<SurfaceObservation, 'businessState' | 'projectionText' | 'baselineInvalidated'>,
): Evidence {
  const projectionKey = ev.keyFrozen ? ev.projectionKey : normalizeProjection(o.projectionText);
  return {
    sawWorking: ev.sawWorking || o.businessState === 'working',
    sawProjectionChange: ev.sawProjectionChange || projectionKey !== ev.baselineKey,
    baselineKey: ev.baselineKey,
    projectionKey,
    keyFrozen: ev.keyFrozen || o.baselineInvalidated,
  };
}

export const hasActivity = (ev: Pick<Evidence, 'sawWorking' | 'sawProjectionChange'>): boolean =>
  ev.sawWorking || ev.sawProjectionChange;

/**
 * Signature of a completion candidate: any change restarts the stability window. It holds the
 * evidence's projection key (frozen after a baseline invalidation), and deliberately not
 * `uiContext`.
 */
export function candidateSignature(
  o: Pick<SurfaceObservation, 'availability' | 'businessState' | 'inputMode'>,
  ev: Pick<Evidence, 'projectionKey' | 'sawWorking' | 'sawProjectionChange'>,
): string {
  return JSON.stringify([
    o.availability,
    o.businessState,
    o.inputMode,
    ev.projectionKey,
    ev.sawWorking,
    ev.sawProjectionChange,
  ]);
}
