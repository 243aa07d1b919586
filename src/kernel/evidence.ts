import type { Observation } from '../schemas/observation.js';
import { normalizeProjection } from './normalize.js';

/** Post-submit evidence of one turn; both flags are sticky (statecharts.md §2). */
export interface Evidence {
  sawWorking: boolean;
  sawProjectionChange: boolean;
  /** The normalised baseline taken when the turn was armed. */
  baselineKey: string;
  /**
   * The projection key of the latest observation: its normalised text, or, once an
   * observation invalidated the baseline, that observation's text for the rest of the turn.
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

/** Folds one observation into the evidence (pure). */
export function accumulateEvidence(
  ev: Evidence,
  obs: Pick<Observation, 'businessState' | 'projectionText' | 'baselineInvalidated'>,
): Evidence {
  const keyFrozen = ev.keyFrozen || obs.baselineInvalidated;
  const projectionKey = ev.keyFrozen ? ev.projectionKey : normalizeProjection(obs.projectionText);
  return {
    sawWorking: ev.sawWorking || obs.businessState === 'working',
    sawProjectionChange: ev.sawProjectionChange || projectionKey !== ev.baselineKey,
    baselineKey: ev.baselineKey,
    projectionKey,
    keyFrozen,
  };
}
