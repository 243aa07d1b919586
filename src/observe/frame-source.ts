import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import {
  BehaviorSubject,
  Observable,
  asyncScheduler,
  exhaustMap,
  from,
  interval,
  map,
  startWith,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { Target } from '../schemas/target.js';
import { createControlModeSource, type ControlSourceOptions } from './control-source.js';
import { probePane, type PaneProbe, type SampleCause } from './probe.js';
import type { TmuxTransport } from './transport.js';

export type { SampleCause };

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
  // Every probe in flight (one per pane at most) listens to it.
  setMaxListeners(0, abort.signal);
  // Per subscription: when its current sample started, or null between samples.
  const running = new Map<object, { dueAt: number; lastAt: number }>();
  let samples = 0;
  const snapshot = (): SourceHealth => {
    const now = performance.now();
    let lagMs = 0;
    let backlog = 0;
    let oldest = now;
    for (const r of running.values()) {
      const late = now - r.dueAt;
      if (late > 0) {
        backlog += 1;
        lagMs = Math.max(lagMs, late);
      }
      oldest = Math.min(oldest, r.lastAt);
    }
    return {
      kind: 'polling',
      connection: abort.signal.aborted ? 'closed' : 'connected',
      lagging: lagMs > options.intervalMs,
      lagMs: Math.round(lagMs),
      degraded: false,
      refreshAgeMs: Math.round(now - oldest),
      panes: running.size,
      backlog,
      pausedPanes: 0,
      pauses: 0,
      flowControl: false,
      skippedTicks: 0,
      restarts: 0,
      samples,
      at: Date.now(),
    };
  };
  const health = new BehaviorSubject<SourceHealth>(snapshot());
  let healthTick: Subscription | null = null;
  return {
    transport: options.transport,
    health$: health.asObservable(),
    samples(pane) {
      return new Observable<PaneProbe>((subscriber) => {
        const key = {};
        const state = { dueAt: performance.now(), lastAt: performance.now() };
        running.set(key, state);
        healthTick ??= interval(options.intervalMs, scheduler).subscribe(() => {
          if (!abort.signal.aborted) health.next(snapshot());
        });
        const sub = interval(options.intervalMs, scheduler)
          .pipe(
            startWith(-1),
            exhaustMap((i) => {
              const startedAt = performance.now();
              const sampledAt = Date.now();
              return from(
                probePane(options.transport, pane.target, {
                  processNames: pane.processNames,
                  includeAnsi: pane.includeAnsi,
                  signal: abort.signal,
                }),
              ).pipe(
                map((probe): PaneProbe => {
                  state.lastAt = startedAt;
                  state.dueAt = startedAt + options.intervalMs;
                  samples += 1;
                  const cause: SampleCause = i < 0 ? 'first' : 'poll';
                  return { ...probe, sampledAt, cause };
                }),
              );
            }),
          )
          .subscribe(subscriber);
        return () => {
          sub.unsubscribe();
          running.delete(key);
          if (running.size === 0) {
            healthTick?.unsubscribe();
            healthTick = null;
          }
        };
      });
    },
    close() {
      abort.abort();
      healthTick?.unsubscribe();
      healthTick = null;
      health.next(snapshot());
      health.complete();
      return Promise.resolve();
    },
  };
}

/** Options for {@link createFrameSource}: the control-mode options plus the choice. */
export type FrameSourceOptions = ControlSourceOptions & {
  /** `control` (one `tmux -C` client per server) or `polling` (one tmux process per sample). */
  kind: 'control' | 'polling';
};

/**
 * The supervisor's one choice of where frames come from. Both kinds need the same transport
 * (for one-off commands); the control source also needs the socket the transport talks to.
 */
export function createFrameSource(options: FrameSourceOptions): FrameSource {
  const { kind, ...rest } = options;
  if (kind === 'polling') {
    return createPollingSource({
      transport: rest.transport,
      intervalMs: rest.intervalMs,
      scheduler: rest.scheduler,
    });
  }
  return createControlModeSource(rest);
}
