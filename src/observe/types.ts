import type { Observable } from 'rxjs';
import type { ProbeErrorInfo, ProcessOutcome, TransportOutcome } from '../schemas/probe.js';
import type { Target } from '../schemas/target.js';
import type { TmuxTransport } from './transport.js';

// The observer's shapes, types only: what a frame source is, what it emits and how it reports
// its own health. The two sources (frame-source.ts, control/) and their consumers import these.

/** What tmux reports about the probed pane. */
export interface PaneInfo {
  /** Pane id, `%N`. */
  id: string;
  /** The pid of the pane's first process. */
  pid: number;
  /** True when the pane's process exited and the pane remains (`remain-on-exit`). */
  dead: boolean;
  /** tmux's idea of the foreground command (`pane_current_command`). */
  currentCommand: string;
  width: number;
  height: number;
}

/** One probe of one pane (docs/statecharts.md §6: transport and process outcomes, plus the capture). */
export interface PaneProbe {
  transport: TransportOutcome;
  process: ProcessOutcome;
  /** The screen; null when tmux could not be read. */
  capture: { text: string; ansi?: string } | null;
  pane: PaneInfo | null;
  /** Pids under the pane whose name matched `processNames` (empty unless `process` is `tui_up`). */
  pids: number[];
  error: ProbeErrorInfo | null;
  /** Wall time the probe took, in ms. */
  tookMs: number;
  /** Epoch ms when the sample was asked of tmux (frame sources set it; `probePane` does not). */
  sampledAt?: number;
  /** Why the frame source took this sample (see `SampleCause`). */
  cause?: SampleCause;
  /**
   * True when capture, pane facts and outcomes equal the previous sample of the same
   * subscription: a consumer may advance its clock instead of parsing the screen again. Set by
   * the control-mode source only; absent means unknown.
   */
  unchanged?: boolean;
}

/**
 * Why a frame source took a sample: `first` after subscribing; `poll` the polling source's
 * interval; `output` the pane printed; `flow` the pane floods and is captured every tick;
 * `lifecycle` a pane, window or session event (closed, resized, mode changed, client
 * re-attached); `process` a process under the pane started or ended; `refresh` the periodic
 * look at a quiet pane; `server` the tmux server went away.
 */
export type SampleCause =
  'first' | 'poll' | 'output' | 'flow' | 'lifecycle' | 'process' | 'refresh' | 'server';

/** What a terminal asks its frame source to sample. */
export interface PaneSampling {
  target: Target;
  /** Process names that mean the agent runs; empty means the tool is not supported. */
  processNames: readonly string[];
  /** Also capture with escapes (`capture-pane -e`). */
  includeAnsi?: boolean;
}

/**
 * How a frame source keeps up, for metrics and for the diagnostics' `observer_lagging`. A
 * lagging source is the observer's own state, never a pane's: a pane it did not get to has no
 * new sample, not an error.
 */
export interface SourceHealth {
  kind: 'polling' | 'control';
  /**
   * The control client's state: `connecting`, `connected`, `reconnecting` (the client ended
   * and is started again with backoff), `server_missing` (panes are reported `tmux_missing`),
   * `closed`; `idle` before the first subscription. The polling source is always `connected`.
   */
  connection: 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'server_missing' | 'closed';
  /** The source falls behind: a pane that changed waits more than an interval past its due time. */
  lagging: boolean;
  /** How far past its due time the most overdue pane is, in ms (0 when on time). */
  lagMs: number;
  /** Quiet panes are looked at less often than configured: the source shed that work first. */
  degraded: boolean;
  /** Age of the oldest capture among subscribed panes, in ms. */
  refreshAgeMs: number;
  /** Panes subscribed. */
  panes: number;
  /** Panes known to have changed and not captured yet. */
  backlog: number;
  /** Panes whose output tmux does not send the source now (flooding); 0 for polling. */
  pausedPanes: number;
  /** Times a pane was paused since the source started. */
  pauses: number;
  /** Control mode's `pause-after` is on (tmux ≥ 3.2). */
  flowControl: boolean;
  /** Ticks skipped because the previous one had not finished. */
  skippedTicks: number;
  /** Times the control client was started again. */
  restarts: number;
  /** Samples emitted since the source started. */
  samples: number;
  /** Epoch ms of this snapshot. */
  at: number;
}

/**
 * Where frames and pane facts come from: one choice made by the supervisor for every terminal
 * of one tmux server. A terminal subscribes to its pane's samples and never loops by itself.
 */
export interface FrameSource {
  /**
   * Samples one pane until unsubscribed: one {@link PaneProbe} per sample, never two at once.
   * Failures to read the pane are outcomes inside the probe, never an error of the stream.
   * Samples are taken when something may have changed; the polling source takes one every
   * interval, the control-mode source when the pane printed, on lifecycle events, and every
   * few seconds otherwise (`cause` says which, `unchanged` marks a repeat).
   */
  samples(pane: PaneSampling): Observable<PaneProbe>;
  /** Runs one-off tmux commands on the same server (typing, keys, discovery). */
  readonly transport: TmuxTransport;
  /**
   * The source's own state, current value first, then on every change of connection and at
   * each tick. Optional: a source without it never lags.
   */
  readonly health$?: Observable<SourceHealth>;
  /** Stops sampling and releases what the source owns (not a transport it was given). */
  close(): Promise<void>;
}
