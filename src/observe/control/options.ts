import type { SchedulerLike } from 'rxjs';
import { PanewardError } from '../../errors.js';
import type { TmuxTransport } from '../transport.js';
import type { Backoff } from './connection-machine.js';

/** Options for `createControlModeSource`. */
export interface ControlSourceOptions {
  /**
   * Runs one-off commands on the same server (typing, keys, discovery) and checks whether the
   * server is there before a client attaches. The source does not close it.
   */
  transport: TmuxTransport;
  /** tmux `-L` of the server the control client attaches to (same as the transport's). */
  socketName?: string;
  /** tmux `-S` (same as the transport's). */
  socketPath?: string;
  tmuxBinary?: string;
  /**
   * The poll interval: a pane that keeps changing is captured once per interval, so at most
   * this long after its output (plus the capture's round trip). 500 ms typically.
   */
  intervalMs: number;
  /**
   * How often the source looks for changed panes; default a quarter of `intervalMs` (at least
   * 20 ms). A pane that printed after a quiet spell is captured within one tick; a pane that
   * keeps printing, once per interval.
   */
  tickMs?: number;
  /**
   * A watched pane that prints after a quiet spell (not captured for an interval) is captured
   * this long after its first `%output`, with every other pane that printed meanwhile, rather
   * than at the next tick. Default the smaller of 50 ms and `tickMs`.
   */
  soonMs?: number;
  /**
   * Every this often, one `list-panes -a` reads a fingerprint of every pane (size, cursor,
   * history, dead, mode, process, window): a pane whose screen changed without output (a
   * resize, a reset by tmux, a dead pane's notice) is captured. Default 5000 ms.
   */
  refreshMs?: number;
  /**
   * Every pane is captured again at least this often whatever else happened, spread over the
   * period: the last line of defence against a change nothing reported. Default 60000 ms.
   * Under overload this is what stretches first.
   */
  recaptureMs?: number;
  /**
   * How long the source waits for tmux to answer a batch before it calls tmux hung (nothing
   * read from the client for that long); default 10000 ms.
   */
  commandTimeoutMs?: number;
  /** `pause-after` for the client (tmux ≥ 3.2), in whole seconds; default 1. */
  pauseAfterSeconds?: number;
  /**
   * A pane that sends more output than this in one tick is paused for this client (its output
   * dropped by tmux, never by the pane); it is then captured every tick and continued after
   * each capture. Default 64 KiB.
   */
  floodBytesPerTick?: number;
  /** Delay before re-attaching after the client ended: first and cap, ms; default 100, 5000. */
  restartBackoff?: Backoff;
  /** Where /proc is; for tests. */
  procRoot?: string;
  /** Drives the tick and the backoff waits; default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The options with every default filled in. */
export type ResolvedOptions = ControlSourceOptions &
  Required<
    Pick<
      ControlSourceOptions,
      | 'intervalMs'
      | 'tickMs'
      | 'soonMs'
      | 'refreshMs'
      | 'recaptureMs'
      | 'commandTimeoutMs'
      | 'pauseAfterSeconds'
      | 'floodBytesPerTick'
      | 'restartBackoff'
    >
  >;

export function resolveOptions(options: ControlSourceOptions): ResolvedOptions {
  if (!(options.intervalMs > 0)) {
    throw new PanewardError(
      'invalid_input',
      `intervalMs must be positive, got ${options.intervalMs}`,
    );
  }
  const o = {
    refreshMs: 5000,
    recaptureMs: 60_000,
    commandTimeoutMs: 10_000,
    pauseAfterSeconds: 1,
    floodBytesPerTick: 64 * 1024,
    ...options,
  };
  const tickMs = Math.min(o.intervalMs, options.tickMs ?? Math.max(20, o.intervalMs / 4));
  return {
    ...o,
    tickMs,
    soonMs: Math.min(tickMs, options.soonMs ?? 50),
    restartBackoff: options.restartBackoff ?? { initialMs: 100, maxMs: 5000 },
  };
}
