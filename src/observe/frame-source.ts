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
import { createControlModeSource, type ControlSourceOptions } from './control/index.js';
import { probePane } from './probe.js';
import type { TmuxTransport } from './transport.js';
import type { FrameSource, PaneProbe, SampleCause, SourceHealth } from './types.js';

export type { FrameSource, PaneSampling, SampleCause, SourceHealth } from './types.js';

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
