import type { Observation } from '../schemas/observation.js';
import { normalizeProjection } from './normalize.js';

/** Post-submit evidence of one turn; both flags are sticky (statecharts.md §2). */
export interface Evidence {
  sawWorking: boolean;
  sawProjectionChange: boolean;
  /** Normalised text the projection is compared against: the baseline, or the frozen text. */
  projectionKey: string;
  /** True once an observation invalidated the baseline and froze the key. */
  keyFrozen: boolean;
}

export function initialEvidence(baseline: string): Evidence {
  return {
    sawWorking: false,
    sawProjectionChange: false,
    projectionKey: normalizeProjection(baseline),
    keyFrozen: false,
  };
}

/** Folds one observation into the evidence (pure). */
export function accumulateEvidence(
  ev: Evidence,
  obs: Pick<Observation, 'businessState' | 'projectionText' | 'baselineInvalidated'>,
): Evidence {
  const text = normalizeProjection(obs.projectionText);
  const freeze = obs.baselineInvalidated && !ev.keyFrozen;
  const projectionKey = freeze ? text : ev.projectionKey;
  return {
    sawWorking: ev.sawWorking || obs.businessState === 'working',
    sawProjectionChange: ev.sawProjectionChange || text !== projectionKey,
    projectionKey,
    keyFrozen: ev.keyFrozen || freeze,
  };
}
