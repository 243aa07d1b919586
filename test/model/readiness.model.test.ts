import { expect } from 'vitest';
import { readinessMachine } from '../../machines/readiness.js';
import { describeModel, type Sut } from './internal/harness.js';
import { KernelHarness, STALL_SECONDS } from './internal/kernel-sut.js';

/**
 * Readiness paths on a real Kernel: every abstract event is produced from raw observations or
 * virtual time; the classifier picks the recovery variants from `stalled` by itself.
 */
function readinessSut(input: unknown): Sut {
  const stalledIsTerminal = (input as { stalledIsTerminal?: boolean } | undefined)
    ?.stalledIsTerminal;
  const h = new KernelHarness('readiness', stalledIsTerminal ?? false);
  let unknownSince: number | null = null;
  return {
    state: () => h.kernel.snapshot().readiness,
    dispose: () => h.dispose(),
    step(event) {
      const edges = h.capture(() => {
        switch (event.type) {
          case 'evt_submit_ready':
          case 'evt_stalled_recovered_to_submit_ready':
            return h.observe({ businessState: 'idle', inputMode: 'freeform' });
          case 'evt_known_nonready':
          case 'evt_stalled_recovered_to_waiting':
            return h.observe({ businessState: 'working', inputMode: 'closed' });
          case 'evt_operator_blocked':
          case 'evt_stalled_recovered_to_blocked':
            return h.observe({ businessState: 'awaiting_operator', inputMode: 'modal' });
          case 'evt_surface_unsupported_or_disconnected':
            return h.observe({ availability: 'unsupported', businessState: 'unknown' });
          case 'evt_unknown_for_stall':
            h.observe({ businessState: 'unknown', inputMode: 'unknown' });
            unknownSince = h.t;
            return;
          case 'evt_unknown_timeout':
            // No observation at all: the timer alone must stall the surface.
            return h.wait(STALL_SECONDS);
          default:
            throw new Error(`no raw input for ${event.type}`);
        }
      });
      if (event.type === 'evt_unknown_timeout') {
        const rec = h.records.findLast((r) => 'machine' in r && r.event === 'evt_unknown_timeout');
        expect(rec).toMatchObject({ t: h.t, unknownElapsedSeconds: STALL_SECONDS });
        expect(h.t - (unknownSince ?? NaN)).toBe(STALL_SECONDS);
      }
      return edges;
    },
  };
}

describeModel({
  name: 'readiness',
  machine: readinessMachine,
  inputs: [undefined, { stalledIsTerminal: true }],
  createSut: readinessSut,
});
