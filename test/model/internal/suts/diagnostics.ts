import type { ProbeFacts } from '../../../../src/terminal/pipeline.js';
import type { ParseOutcome } from '../../../../src/schemas/probe.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import { PipelineHarness, realFrame } from '../pipeline-sut.js';
import { seedModel } from '../seed-model.js';
import { diagnosticsSeed } from '../../seed-diagrams.js';

/** A real Claude Code screen: what a poll of a live pane captures. */
const SCREEN = realFrame(
  'claude_code',
  'normal-turn',
  (p) => p.surface.businessState === 'idle',
).text;

type Raw =
  | { capture: true; probe: ProbeFacts }
  | { capture: false; probe: ProbeFacts & { parse?: ParseOutcome } };

/** Raw poll outcomes the mapping of statecharts.md §6 turns into each event, used in rotation. */
const RAW: Record<string, Raw[]> = {
  evt_probe_available: [{ capture: true, probe: { transport: 'tmux_up', process: 'tui_up' } }],
  evt_probe_unavailable: [
    { capture: false, probe: { transport: 'tmux_missing', process: 'unknown' } },
    { capture: false, probe: { transport: 'tmux_missing', process: 'tui_down' } },
  ],
  evt_probe_tui_down: [
    { capture: true, probe: { transport: 'tmux_up', process: 'tui_down' } },
    {
      capture: false,
      probe: { transport: 'tmux_up', process: 'tui_down', parse: 'skipped_tui_down' },
    },
  ],
  evt_probe_error: [
    { capture: false, probe: { transport: 'probe_error', process: 'unknown' } },
    {
      capture: true,
      probe: {
        transport: 'tmux_up',
        process: 'probe_error',
        error: { kind: 'process_inspection', message: 'took too long' },
      },
    },
    { capture: false, probe: { transport: 'tmux_up', process: 'tui_up' } },
  ],
  evt_probe_unknown: [
    { capture: true, probe: { transport: 'tmux_up', process: 'unsupported_tool' } },
    {
      capture: false,
      probe: { transport: 'tmux_up', process: 'unknown', parse: 'transport_unavailable' },
    },
  ],
};
let n = 0;

/** Diagnostics paths through the whole per-terminal pipeline: real captures and raw probes. */
function diagnosticsSut(_input: unknown, machines?: MachineOverrides): Sut {
  const h = new PipelineHarness('claude_code', {}, machines);
  return {
    state: () => h.pipeline.state.diagnostics.availability,
    dispose: () => h.dispose(),
    step(event) {
      const variants = RAW[event.type];
      if (!variants) throw new Error(`no raw input for ${event.type}`);
      const raw = variants[n++ % variants.length]!;
      return h.capture('diagnostics', () =>
        raw.capture ? h.frame(0.5, SCREEN, raw.probe) : h.probe(0.5, raw.probe),
      );
    },
  };
}

specs.push({
  name: 'diagnostics',
  model: seedModel(diagnosticsSeed),
  inputs: [undefined],
  createSut: diagnosticsSut,
});
