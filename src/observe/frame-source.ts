import {
  asyncScheduler,
  exhaustMap,
  from,
  interval,
  startWith,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { Target } from '../schemas/target.js';
import { probePane, type PaneProbe } from './probe.js';
import type { TmuxTransport } from './transport.js';

/** What a terminal asks its frame source to sample. */
export interface PaneSampling {
  target: Target;
  /** Process names that mean the agent runs; empty means the tool is not supported. */
  processNames: readonly string[];
  /** Also capture with escapes (`capture-pane -e`). */
  includeAnsi?: boolean;
}

/**
 * Where frames and pane facts come from: one choice made by the supervisor for every terminal
 * of one tmux server. A terminal subscribes to its pane's samples and never loops by itself.
 */
export interface FrameSource {
  /**
   * Samples one pane until unsubscribed: one {@link PaneProbe} per sample, never two at once.
   * Failures to read the pane are outcomes inside the probe, never an error of the stream.
   */
  samples(pane: PaneSampling): Observable<PaneProbe>;
  /** Runs one-off tmux commands on the same server (typing, keys, discovery). */
  readonly transport: TmuxTransport;
  /** Stops sampling and releases what the source owns (not a transport it was given). */
  close(): Promise<void>;
}

export interface PollingSourceOptions {
  transport: TmuxTransport;
  /** Time between the starts of two samples of one pane; a slow sample is not overlapped. */
  intervalMs: number;
  scheduler?: SchedulerLike;
}

/**
 * The polling source: each pane is probed on its own interval with one tmux invocation per
 * sample (pane facts and capture chained), then its processes are inspected.
 */
export function createPollingSource(options: PollingSourceOptions): FrameSource {
  const scheduler = options.scheduler ?? asyncScheduler;
  const abort = new AbortController();
  return {
    transport: options.transport,
    samples(pane) {
      return interval(options.intervalMs, scheduler).pipe(
        startWith(-1),
        exhaustMap(() =>
          from(
            probePane(options.transport, pane.target, {
              processNames: pane.processNames,
              includeAnsi: pane.includeAnsi,
              signal: abort.signal,
            }),
          ),
        ),
      );
    },
    close() {
      abort.abort();
      return Promise.resolve();
    },
  };
}
