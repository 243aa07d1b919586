// A witness chart's context for the rule tests: the record followed, under `both`.
import type { WitnessConfig, WitnessContext } from '../../../machines/witness.js';

export const BOTH: WitnessConfig = { authority: 'both', windowSeconds: 3 };

export function witnessContext(o: Partial<WitnessContext> = {}): WitnessContext {
  return {
    config: BOTH,
    markers: { record: null, hook: null, observer: null },
    recordLive: true,
    recordSeen: true,
    lastWitness: null,
    screenOnly: null,
    refusal: null,
    held: null,
    ...o,
  };
}
