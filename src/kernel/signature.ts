import type { Observation } from '../schemas/observation.js';
import type { Evidence } from './evidence.js';
import { normalizeProjection } from './normalize.js';

/**
 * Signature of a completion candidate (statecharts.md §2): any change restarts the stability
 * window. `uiContext` is deliberately not part of it.
 */
export function candidateSignature(
  obs: Pick<Observation, 'availability' | 'businessState' | 'inputMode' | 'projectionText'>,
  ev: Pick<Evidence, 'sawWorking' | 'sawProjectionChange'>,
): string {
  return JSON.stringify([
    obs.availability,
    obs.businessState,
    obs.inputMode,
    normalizeProjection(obs.projectionText),
    ev.sawWorking,
    ev.sawProjectionChange,
  ]);
}
