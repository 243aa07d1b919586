import { expect } from 'vitest';
import type { Observation } from '../../../../src/schemas/observation.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import { KernelHarness, OBSERVATION_GAP, STALL_SECONDS } from '../kernel-sut.js';
import { PipelineHarness, realFrame } from '../pipeline-sut.js';
import { seedModel } from '../seed-model.js';
import { readinessSeed } from '../../seed-diagrams.js';

const model = seedModel(readinessSeed, {
  stalled_is_terminal: (i) => i.stalledIsTerminal === true,
});
const INPUTS = [{ stalledIsTerminal: false }, { stalledIsTerminal: true }];

/**
 * Raw observations that the table of statecharts.md §1 classifies as each event; the SUT
 * rotates through them, so across the generated paths every one is used.
 */
const RAW: Record<string, Array<Partial<Observation>>> = {
  submit_ready: [
    { businessState: 'idle', inputMode: 'freeform' },
    { businessState: 'idle', inputMode: 'freeform', uiContext: 'slash_menu' },
  ],
  known_nonready: [
    { businessState: 'working', inputMode: 'closed' },
    { businessState: 'working', inputMode: 'freeform' },
    { businessState: 'idle', inputMode: 'modal' },
    // A known business state with an unknown input mode is not unknown-for-stall.
    { businessState: 'idle', inputMode: 'unknown' },
  ],
  operator_blocked: [
    { businessState: 'awaiting_operator', inputMode: 'modal' },
    { businessState: 'awaiting_operator', inputMode: 'freeform' },
  ],
  unsupported_or_disconnected: [
    { availability: 'unsupported', businessState: 'unknown' },
    { availability: 'disconnected', businessState: 'idle', inputMode: 'freeform' },
  ],
  unknown_for_stall: [
    { businessState: 'unknown', inputMode: 'unknown' },
    { availability: 'unknown', businessState: 'idle', inputMode: 'freeform' },
  ],
};
const CLASS: Record<string, string> = {
  evt_submit_ready: 'submit_ready',
  evt_stalled_recovered_to_submit_ready: 'submit_ready',
  evt_known_nonready: 'known_nonready',
  evt_stalled_recovered_to_waiting: 'known_nonready',
  evt_operator_blocked: 'operator_blocked',
  evt_stalled_recovered_to_blocked: 'operator_blocked',
  evt_surface_unsupported_or_disconnected: 'unsupported_or_disconnected',
  evt_unknown_for_stall: 'unknown_for_stall',
};
const used: Record<string, number> = {};
function rawFor(cls: string): Partial<Observation> {
  const list = RAW[cls]!;
  used[cls] = (used[cls] ?? 0) + 1;
  return list[used[cls]! % list.length]!;
}

/**
 * Readiness paths on a real Kernel: every event comes from a raw observation or from virtual
 * time. While unknown, more unknown observations arrive inside the stall window; the stall
 * must still come exactly one timeout after the first, never earlier, with no observation.
 */
function kernelSut(input: unknown, machines?: MachineOverrides): Sut {
  const { stalledIsTerminal } = input as { stalledIsTerminal: boolean };
  const h = new KernelHarness('readiness', stalledIsTerminal, machines);
  let unknownSince: number | null = null;
  return {
    state: () => h.kernel.snapshot().readiness,
    dispose: () => h.dispose(),
    step(event) {
      if (event.type === 'evt_unknown_timeout') {
        const since = unknownSince!;
        // Unknown observations inside the window do not move the deadline.
        const early = h.capture(() => {
          h.observe(rawFor('unknown_for_stall'));
          h.observe(rawFor('unknown_for_stall'));
          h.wait(since + STALL_SECONDS - h.t - 0.001);
        });
        expect(early, 'nothing before the stall deadline').toEqual([]);
        const edges = h.capture(() => h.wait(0.001));
        const stall = h.records.findLast((r) => 'event' in r && r.event === 'evt_unknown_timeout');
        expect(
          stall && 'unknownElapsedSeconds' in stall && stall.unknownElapsedSeconds,
        ).toBeCloseTo(STALL_SECONDS, 9);
        expect(h.t - since).toBeCloseTo(STALL_SECONDS, 9);
        return edges;
      }
      const cls = CLASS[event.type];
      if (!cls) throw new Error(`no raw input for ${event.type}`);
      const edges = h.capture(() => h.observe(rawFor(cls)));
      if (event.type === 'evt_unknown_for_stall') unknownSince = h.t;
      return edges;
    },
  };
}

specs.push({ name: 'readiness', model, inputs: INPUTS, createSut: kernelSut });

/** Real Claude Code screens for the classes that have one; probes for the others. */
const screens = {
  submit_ready: realFrame(
    'claude_code',
    'normal-turn',
    (p) => p.surface.businessState === 'idle' && p.surface.inputMode === 'freeform',
  ).text,
  known_nonready: realFrame(
    'claude_code',
    'normal-turn',
    (p) => p.surface.businessState === 'working',
  ).text,
  operator_blocked: realFrame(
    'claude_code',
    'permission-prompt',
    (p) => p.surface.businessState === 'awaiting_operator',
  ).text,
};

/**
 * The same paths through the whole per-terminal pipeline: real screens parsed by the Claude
 * Code profile, a dead TUI for disconnected, failing probes for unknown.
 */
function pipelineSut(input: unknown, machines?: MachineOverrides): Sut {
  const { stalledIsTerminal } = input as { stalledIsTerminal: boolean };
  const h = new PipelineHarness(
    'claude_code',
    {
      stallTimeoutSeconds: STALL_SECONDS,
      stalledIsTerminal,
    },
    machines,
  );
  let unknownSince = 0;
  return {
    state: () => h.pipeline.state.readiness.status,
    dispose: () => h.dispose(),
    step(event) {
      return h.capture('readiness', () => {
        switch (CLASS[event.type] ?? event.type) {
          case 'submit_ready':
            return h.frame(OBSERVATION_GAP, screens.submit_ready);
          case 'known_nonready':
            return h.frame(OBSERVATION_GAP, screens.known_nonready);
          case 'operator_blocked':
            return h.frame(OBSERVATION_GAP, screens.operator_blocked);
          case 'unsupported_or_disconnected':
            return h.frame(OBSERVATION_GAP, screens.submit_ready, {
              transport: 'tmux_up',
              process: 'tui_down',
            });
          case 'unknown_for_stall':
            h.probe(OBSERVATION_GAP, {
              transport: 'probe_error',
              process: 'unknown',
              error: { kind: 'tmux_timeout', message: 'tmux did not answer' },
            });
            unknownSince = h.t;
            return;
          case 'evt_unknown_timeout':
            return h.wait(unknownSince + STALL_SECONDS - h.t);
          default:
            throw new Error(`no raw input for ${event.type}`);
        }
      });
    },
  };
}

specs.push({
  name: 'readiness (pipeline, real screens)',
  model,
  inputs: INPUTS,
  createSut: pipelineSut,
});
