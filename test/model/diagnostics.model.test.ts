import { diagnosticsMachine } from '../../machines/diagnostics.js';
import type { ProbeOutcome } from '../../src/schemas/probe.js';
import { DiagnosticsTracker } from '../../src/tracker/diagnostics.js';
import { describeModel, type Sut } from './internal/harness.js';

type Raw = Pick<ProbeOutcome, 'transport' | 'process' | 'parse'>;

/** Raw probe outcomes that map to each event (statecharts.md §6); used in rotation. */
const RAW: Record<string, Raw[]> = {
  evt_probe_available: [{ transport: 'tmux_up', process: 'tui_up', parse: 'parsed' }],
  evt_probe_unavailable: [
    { transport: 'tmux_missing', process: 'unknown', parse: 'transport_unavailable' },
    { transport: 'tmux_missing', process: 'tui_down', parse: 'skipped_tui_down' },
  ],
  evt_probe_tui_down: [
    { transport: 'tmux_up', process: 'tui_down', parse: 'skipped_tui_down' },
    { transport: 'tmux_up', process: 'tui_down', parse: 'parsed' },
  ],
  evt_probe_error: [
    { transport: 'probe_error', process: 'unknown', parse: 'transport_unavailable' },
    { transport: 'tmux_up', process: 'probe_error', parse: 'probe_error' },
    { transport: 'tmux_up', process: 'tui_up', parse: 'parse_error' },
    { transport: 'tmux_missing', process: 'unknown', parse: 'probe_error' },
  ],
  evt_probe_unknown: [
    { transport: 'tmux_up', process: 'unsupported_tool', parse: 'unsupported_tool' },
    { transport: 'tmux_up', process: 'tui_up', parse: 'unsupported_tool' },
    { transport: 'tmux_up', process: 'unknown', parse: 'transport_unavailable' },
  ],
};

function diagnosticsSut(): Sut {
  const tracker = new DiagnosticsTracker();
  let n = 0;
  return {
    state: () => tracker.state,
    dispose: () => tracker.stop(),
    step(event) {
      const variants = RAW[event.type];
      if (!variants) throw new Error(`no raw input for ${event.type}`);
      const raw = variants[n++ % variants.length]!;
      return tracker
        .probe({ ...raw, error: null })
        .map(({ from, event, to }) => ({ from, event, to }));
    },
  };
}

describeModel({
  name: 'diagnostics',
  machine: diagnosticsMachine,
  inputs: [undefined],
  createSut: diagnosticsSut,
});
