import { diagnosticsMachine, type DiagnosticsEvent } from '../../machines/diagnostics.js';
import { MachineRunner, type Step } from '../kernel/internal/runner.js';
import type { ProbeOutcome } from '../schemas/probe.js';

export type DiagnosticsAvailability =
  'unknown' | 'available' | 'unavailable' | 'tui_down' | 'error';

/** Maps one probe cycle's outcomes to availability, first match wins (statecharts.md §6). */
export function mapProbeOutcome(
  p: Pick<ProbeOutcome, 'transport' | 'process' | 'parse'>,
): DiagnosticsAvailability {
  if (
    p.transport === 'probe_error' ||
    p.process === 'probe_error' ||
    p.parse === 'probe_error' ||
    p.parse === 'parse_error'
  ) {
    return 'error';
  }
  if (p.transport === 'tmux_missing') return 'unavailable';
  if (p.process === 'tui_down') return 'tui_down';
  if (p.process === 'unsupported_tool' || p.parse === 'unsupported_tool') return 'unknown';
  if (p.parse === 'parsed') return 'available';
  return 'unknown';
}

const EVENT: Record<DiagnosticsAvailability, DiagnosticsEvent['type']> = {
  available: 'evt_probe_available',
  unavailable: 'evt_probe_unavailable',
  tui_down: 'evt_probe_tui_down',
  error: 'evt_probe_error',
  unknown: 'evt_probe_unknown',
};

/** The diagnostics machine fed with probe outcomes. */
export class DiagnosticsTracker {
  private readonly runner = new MachineRunner(diagnosticsMachine, undefined);
  private last: ProbeOutcome | null = null;

  get state(): DiagnosticsAvailability {
    return this.runner.state as DiagnosticsAvailability;
  }

  get outcome(): ProbeOutcome | null {
    return this.last;
  }

  /** Sends one probe cycle; returns the state changes it caused. */
  probe(outcome: ProbeOutcome): Step[] {
    this.last = outcome;
    return this.runner.send({ type: EVENT[mapProbeOutcome(outcome)] });
  }

  stop(): void {
    this.runner.stop();
  }
}
