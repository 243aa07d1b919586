import type { SourceHealth } from '../types.js';
import type { ConnectionState } from './connection-machine.js';

/** What the health snapshot reads of a watched pane. */
export interface Observed {
  readonly dirty: boolean;
  readonly urgent: boolean;
  readonly dirtySince: number;
  readonly lastCaptureAt: number;
}

/** The source's state the health snapshot is computed from. */
export interface HealthInput {
  /** `performance.now()`. */
  now: number;
  /** Epoch ms of the snapshot. */
  at: number;
  intervalMs: number;
  tickMs: number;
  recaptureMs: number;
  connection: ConnectionState;
  /** A tick is running (waiting on tmux), started at `tickStartedAt`. */
  ticking: boolean;
  tickStartedAt: number;
  /** The last tick that came late (this process was busy): when, and by how much. */
  lastLateAt: number;
  lateMs: number;
  /** The last tick skipped because the previous one still ran. */
  lastSkipAt: number;
  budget: number;
  pausedPanes: number;
  pauses: number;
  flowControl: boolean;
  skippedTicks: number;
  restarts: number;
  samples: number;
}

/**
 * How the control-mode source keeps up. A pane that changed is due one interval after its
 * previous capture, or when it changed if later; a tick late is still on time. A tick still
 * waiting on tmux after an interval puts every pane behind by as much (a stopped or hung server
 * shows here before its commands time out); a tick that came late counts for two intervals.
 */
export function healthSnapshot(watches: Iterable<Observed>, s: HealthInput): SourceHealth {
  const { now, intervalMs } = s;
  let panes = 0;
  let backlog = 0;
  let lagMs = 0;
  let oldestCapture = now;
  for (const w of watches) {
    panes += 1;
    if (w.dirty || w.urgent) {
      backlog += 1;
      const due = Math.max(w.dirtySince, w.lastCaptureAt + intervalMs);
      if (w.dirty) lagMs = Math.max(lagMs, now - due - s.tickMs);
    }
    if (w.lastCaptureAt !== -Infinity) oldestCapture = Math.min(oldestCapture, w.lastCaptureAt);
  }
  if (s.ticking) lagMs = Math.max(lagMs, now - s.tickStartedAt - intervalMs);
  if (now - s.lastLateAt < 2 * intervalMs) lagMs = Math.max(lagMs, s.lateMs);
  lagMs = Math.max(0, Math.round(lagMs));
  const refreshAgeMs = Math.round(now - oldestCapture);
  return {
    kind: 'control',
    connection: s.connection,
    // Behind by more than an interval, or unable to start a tick on time just now.
    lagging: lagMs > intervalMs || now - s.lastSkipAt < 2 * intervalMs,
    lagMs,
    degraded: s.budget !== Infinity || refreshAgeMs > 2 * s.recaptureMs,
    refreshAgeMs,
    panes,
    backlog,
    pausedPanes: s.pausedPanes,
    pauses: s.pauses,
    flowControl: s.flowControl,
    skippedTicks: s.skippedTicks,
    restarts: s.restarts,
    samples: s.samples,
    at: s.at,
  };
}
