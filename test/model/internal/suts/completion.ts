import { expect } from 'vitest';
import type { Observation } from '../../../../src/schemas/observation.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import { KernelHarness, SENTINEL, STABILITY_SECONDS, STALL_SECONDS } from '../kernel-sut.js';
import { seedModel } from '../seed-model.js';
import { completionSeed } from '../../seed-diagrams.js';

const model = seedModel(completionSeed, {
  stalled_is_terminal: (i) => i.stalledIsTerminal === true,
});

const rotation: Record<string, number> = {};
/** The next of several raw inputs for one class, so the generated paths use all of them. */
function next<T>(name: string, options: readonly T[]): T {
  rotation[name] = (rotation[name] ?? 0) + 1;
  return options[rotation[name]! % options.length]!;
}

/**
 * Completion paths on a real Kernel after a submit. Evidence comes from the raw projection (a
 * fresh reply differs from the baseline) or a working surface; the stability window and the
 * stall timer from virtual time, with observations inside each window that must not move it
 * (or, for a new candidate, must); the observer payload from a sentinel in the reply. A
 * submit-ready surface with no evidence yet is used as a non-candidate: it must never complete.
 */
function completionSut(input: unknown, machines?: MachineOverrides): Sut {
  const { stalledIsTerminal } = input as { stalledIsTerminal: boolean };
  const h = new KernelHarness('completion', stalledIsTerminal, machines);
  h.kernel.submit(0, 'baseline');
  let evidence = false;
  let unknownSince = 0;
  let candidate: Partial<Observation> | null = null;
  let candidateSince = 0;
  const candidateObs = (): Partial<Observation> => {
    const fresh = { projectionText: h.freshReply() };
    return evidence ? next('candidate', [fresh, { projectionText: 'baseline' }]) : fresh;
  };
  return {
    state: () => h.kernel.snapshot().completion?.status ?? 'none',
    dispose: () => h.dispose(),
    step(event) {
      switch (event.type) {
        case 'evt_working_seen':
        case 'evt_stalled_recovered_to_working':
          evidence = true;
          return h.capture(() =>
            h.observe(
              next('working', [
                { businessState: 'working', inputMode: 'closed' },
                { businessState: 'working', inputMode: 'freeform' },
                { businessState: 'working', inputMode: 'modal' },
              ]),
            ),
          );
        case 'evt_submit_ready_with_activity':
        case 'evt_stalled_recovered_to_candidate': {
          candidate = candidateObs();
          evidence = true;
          const edges = h.capture(() => h.observe(candidate!));
          candidateSince = h.t;
          return edges;
        }
        case 'evt_known_noncandidate':
        case 'evt_state_signature_changed':
        case 'evt_stalled_recovered_to_waiting':
          return h.capture(() =>
            h.observe(
              next('noncandidate', [
                { businessState: 'idle', inputMode: 'closed' },
                { businessState: 'idle', inputMode: 'modal' },
                // Submit-ready, but the turn has no evidence of its own yet: not a candidate.
                ...(evidence ? [] : [{ businessState: 'idle', inputMode: 'freeform' } as const]),
              ]),
            ),
          );
        case 'evt_operator_blocked':
        case 'evt_stalled_recovered_to_blocked':
          return h.capture(() =>
            h.observe(
              next('blocked', [
                { businessState: 'awaiting_operator', inputMode: 'modal' },
                { businessState: 'awaiting_operator', inputMode: 'freeform' },
              ]),
            ),
          );
        case 'evt_surface_unsupported_or_disconnected':
          return h.capture(() =>
            h.observe(
              next('gone', [
                { availability: 'disconnected', businessState: 'unknown' },
                { availability: 'unsupported', businessState: 'idle', inputMode: 'freeform' },
              ]),
            ),
          );
        case 'evt_unknown_for_stall': {
          const edges = h.capture(() =>
            h.observe(
              next('unknown', [
                { availability: 'unknown', businessState: 'unknown' },
                { businessState: 'unknown', inputMode: 'freeform' },
              ]),
            ),
          );
          unknownSince = h.t;
          return edges;
        }
        case 'evt_unknown_timeout': {
          const early = h.capture(() => {
            h.observe({ availability: 'unknown', businessState: 'unknown' });
            h.wait(unknownSince + STALL_SECONDS - h.t - 0.001);
          });
          expect(early, 'nothing before the stall deadline').toEqual([]);
          return h.capture(() => h.wait(0.001));
        }
        case 'evt_stability_window_elapsed': {
          // Inside the window: the same candidate again (the window keeps running), or a new
          // one (the window restarts from it).
          const renewed = next('window', [false, true]);
          const early = h.capture(() => {
            h.observe(candidate!);
            if (renewed) {
              candidate = { projectionText: h.freshReply() };
              h.observe(candidate);
              candidateSince = h.t;
            }
            h.wait(candidateSince + STABILITY_SECONDS - h.t - 0.001);
          });
          expect(early, 'nothing before the stability window ends').toEqual([]);
          const edges = h.capture(() => h.wait(0.001));
          const done = h.records.findLast(
            (r) => 'event' in r && r.event === 'evt_stability_window_elapsed',
          );
          expect(
            done && 'candidateElapsedSeconds' in done && done.candidateElapsedSeconds,
          ).toBeCloseTo(STABILITY_SECONDS, 9);
          return edges;
        }
        case 'evt_completion_observer_payload': {
          const edges = h.capture(() =>
            h.observe({ projectionText: `${h.freshReply()}\n${SENTINEL}` }),
          );
          expect(h.kernel.snapshot().completion?.payload).toEqual({ reply: 'sentinel seen' });
          return edges;
        }
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
    },
  };
}

specs.push({
  name: 'completion',
  model,
  inputs: [{ stalledIsTerminal: false }, { stalledIsTerminal: true }],
  createSut: completionSut,
});
