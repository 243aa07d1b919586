import { expect } from 'vitest';
import { completionMachine } from '../../machines/completion.js';
import { describeModel, type Sut } from './internal/harness.js';
import {
  KernelHarness,
  SENTINEL,
  STABILITY_SECONDS,
  STALL_SECONDS,
} from './internal/kernel-sut.js';

/**
 * Completion paths on a real Kernel after a submit: evidence comes from the raw projection
 * (a fresh reply differs from the baseline), the stability window and the stall timer from
 * virtual time, the observer payload from a sentinel in the reply.
 */
function completionSut(input: unknown): Sut {
  const stalledIsTerminal = (input as { stalledIsTerminal?: boolean } | undefined)
    ?.stalledIsTerminal;
  const h = new KernelHarness('completion', stalledIsTerminal ?? false);
  h.kernel.submit(0, 'baseline');
  return {
    state: () => h.kernel.snapshot().completion?.status ?? 'none',
    dispose: () => h.dispose(),
    step(event) {
      const edges = h.capture(() => {
        switch (event.type) {
          case 'evt_working_seen':
          case 'evt_stalled_recovered_to_working':
            return h.observe({ businessState: 'working', inputMode: 'closed' });
          case 'evt_submit_ready_with_activity':
          case 'evt_stalled_recovered_to_candidate':
            return h.observe({ projectionText: h.freshReply() });
          case 'evt_known_noncandidate':
          case 'evt_state_signature_changed':
          case 'evt_stalled_recovered_to_waiting':
            // Idle but typing would not reach a prompt: known, not a candidate.
            return h.observe({ businessState: 'idle', inputMode: 'closed' });
          case 'evt_operator_blocked':
          case 'evt_stalled_recovered_to_blocked':
            return h.observe({ businessState: 'awaiting_operator', inputMode: 'modal' });
          case 'evt_surface_unsupported_or_disconnected':
            return h.observe({ availability: 'disconnected', businessState: 'unknown' });
          case 'evt_unknown_for_stall':
            return h.observe({ availability: 'unknown', businessState: 'unknown' });
          case 'evt_unknown_timeout':
            return h.wait(STALL_SECONDS);
          case 'evt_stability_window_elapsed':
            // Silence counts as stable: no observation during the window.
            return h.wait(STABILITY_SECONDS);
          case 'evt_completion_observer_payload':
            return h.observe({ projectionText: `${h.freshReply()}\n${SENTINEL}` });
          default:
            throw new Error(`no raw input for ${event.type}`);
        }
      });
      if (event.type === 'evt_stability_window_elapsed') {
        expect(h.lastTransition()).toMatchObject({
          t: h.t,
          candidateElapsedSeconds: STABILITY_SECONDS,
        });
      }
      if (event.type === 'evt_completion_observer_payload') {
        expect(h.kernel.snapshot().completion?.payload).toEqual({ reply: 'sentinel seen' });
      }
      return edges;
    },
  };
}

describeModel({
  name: 'completion',
  machine: completionMachine,
  inputs: [undefined, { stalledIsTerminal: true }],
  createSut: completionSut,
});
