import type { Observation } from '../schemas/observation.js';
import type { Evidence } from './evidence.js';

/**
 * Signature of a completion candidate (statecharts.md §2): any change restarts the stability
 * window. It holds the evidence's projection key (frozen after a baseline invalidation), and
 * deliberately not `uiContext`.
 */
export function candidateSignature(
  obs: Pick<Observation, 'availability' | 'businessState' | 'inputMode'>,
  ev: Pick<Evidence, 'projectionKey' | 'sawWorking' | 'sawProjectionChange'>,
): string {
  return JSON.stringify([
    obs.availability,
    obs.businessState,
    obs.inputMode,
    ev.projectionKey,
    ev.sawWorking,
    ev.sawProjectionChange,
  ]);
}
