import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import {
  BehaviorSubject,
  Observable,
  asyncScheduler,
  interval,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { PanewardError } from '../../errors.js';
import type { ControlClient } from '../control-client.js';
import { commandLine, type ControlNotification, type ControlReply } from '../control-protocol.js';
import type { TmuxTransport } from '../transport.js';
import type { FrameSource, PaneProbe, PaneSampling, SourceHealth } from '../types.js';
import { Capturer } from './capture.js';
import { Chores } from './chores.js';
import {
  initialConnection,
  transition,
  type Connection,
  type ConnectionEvent,
} from './connection-machine.js';
import { runConnection } from './connection.js';
import type { FlowState, SourceContext } from './context.js';
import { canTurnOutputOff } from './flow.js';
import { healthSnapshot } from './health.js';
import { resolveOptions, type ControlSourceOptions, type ResolvedOptions } from './options.js';
import { routeNotification } from './routing.js';
import { nextBudget, planTick, urgentBatch } from './scheduler.js';
import { markUrgent, newWatch, WatchIndex } from './watches.js';

/**
 * The control-mode source: one long-lived `tmux -C` client per tmux server carries every
 * capture. `%output` marks a pane dirty and the next tick captures only dirty panes, in one
 * batch of command lines whose replies are matched in order. A pane whose screen changed without
 * output is found by a fingerprint of every pane read every `refreshMs`, and every pane is
 * captured again every `recaptureMs`. Window and pane lifecycle notifications trigger a capture
 * at once, so a killed pane is reported as missing within a round trip. Processes are read from
 * one incremental /proc table per tick shared by every pane. The client is restarted with
 * backoff when it ends (connection-machine.ts); while the server is gone every pane is reported
 * `tmux_missing`.
 *
 * Samples carry `cause`, `sampledAt` and `unchanged` (see {@link PaneProbe}); `health$`
 * reports whether the source keeps up (`lagging`), which the supervisor shows as
 * `observer_lagging`. The source never turns its own backlog into a pane's `probe_error`: a
 * pane it could not capture in time gets no sample, and the lag is reported instead.
 */
export function createControlModeSource(options: ControlSourceOptions): FrameSource {
  return new ControlModeSource(options);
}

class ControlModeSource implements FrameSource {
  readonly transport: TmuxTransport;
  readonly #o: ResolvedOptions;
  readonly #scheduler: SchedulerLike;
  readonly #abort = new AbortController();
  readonly #capturer: Capturer;
  readonly #chores: Chores;
  readonly #watches = new WatchIndex();
  readonly #flow: FlowState = {
    watches: this.#watches,
    paused: new Set(),
    off: new Set(),
    bytes: new Map(),
    activity: new Map(),
    attachedSession: null,
    outputOff: false,
    pauses: 0,
  };
  #client: ControlClient | null = null;
  #connection: Connection;
  #connecting: Promise<void> | null = null;
  #tick: Subscription | null = null;
  #ticking = false;
  /** A capture of panes that printed after a quiet spell, due shortly (see `#captureSoon`). */
  #soon: Subscription | null = null;
  /** The batch in progress is such a capture, not a tick. */
  #early = false;
  #skippedTicks = 0;
  #lastTickAt = performance.now();
  /** When the tick in progress started (it waits on tmux). */
  #tickStartedAt = performance.now();
  readonly #subTicksPerInterval: number;
  #subTicks = 0;
  #fullPending = false;
  #budget = Infinity;
  #urgentQueued = false;
  #flowControl = false;
  #lastSkipAt = -Infinity;
  #lastLateAt = -Infinity;
  #lateMs = 0;
  readonly #health: BehaviorSubject<SourceHealth>;

  constructor(options: ControlSourceOptions) {
    this.#o = resolveOptions(options);
    this.#connection = initialConnection(this.#o.restartBackoff);
    // Every command in flight listens to it.
    setMaxListeners(0, this.#abort.signal);
    this.#subTicksPerInterval = Math.max(1, Math.round(this.#o.intervalMs / this.#o.tickMs));
    this.transport = options.transport;
    this.#scheduler = options.scheduler ?? asyncScheduler;
    const ctx: SourceContext = {
      o: this.#o,
      signal: this.#abort.signal,
      watches: this.#watches,
      flow: this.#flow,
      client: () => this.#client,
      lastLateAt: () => this.#lastLateAt,
      queueUrgent: () => this.#queueUrgent(),
      command: (client, line) => this.#command(client, line),
      fireAndForget: (client, line) => this.#fireAndForget(client, line),
    };
    this.#capturer = new Capturer(ctx, options.procRoot);
    this.#chores = new Chores(ctx, this.#capturer);
    this.#health = new BehaviorSubject(this.#snapshot());
  }

  get health$(): Observable<SourceHealth> {
    return this.#health.asObservable();
  }

  get health(): SourceHealth {
    return this.#health.value;
  }

  samples(sampling: PaneSampling): Observable<PaneProbe> {
    return new Observable<PaneProbe>((subscriber) => {
      if (this.#abort.signal.aborted) {
        subscriber.complete();
        return;
      }
      const watch = newWatch(sampling, subscriber);
      this.#watches.add(watch);
      this.#start();
      if (this.#connection.state === 'server_missing') {
        this.#capturer.reportMissing(watch, 'no tmux server');
      } else this.#queueUrgent();
      this.#publishHealth();
      return () => {
        this.#watches.forget(watch);
        this.#publishHealth();
      };
    });
  }

  async close(): Promise<void> {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort(new PanewardError('stopped', 'frame source closed'));
    this.#tick?.unsubscribe();
    this.#tick = null;
    this.#soon?.unsubscribe();
    this.#soon = null;
    for (const w of [...this.#watches.all]) w.subscriber.complete();
    const client = this.#client;
    this.#client = null;
    await client?.close();
    await this.#connecting?.catch(() => undefined);
    this.#dispatch({ type: 'close' });
    this.#health.complete();
  }

  // ---- connection -------------------------------------------------------------------------

  #start(): void {
    if (this.#tick || this.#abort.signal.aborted) return;
    this.#tick = interval(this.#o.tickMs, this.#scheduler).subscribe(() => this.#onTick());
    this.#connecting = runConnection({
      signal: this.#abort.signal,
      transport: this.transport,
      client: {
        socketName: this.#o.socketName,
        socketPath: this.#o.socketPath,
        tmuxBinary: this.#o.tmuxBinary,
      },
      scheduler: this.#scheduler,
      connection: () => this.#connection,
      dispatch: (e) => this.#dispatch(e),
      watchedSessions: () => [...this.#watches.all].map((w) => w.sessionId),
      serverMissing: (message) => {
        for (const w of this.#watches.all) this.#capturer.reportMissing(w, message);
      },
      attach: (client) => this.#attach(client),
      attached: () => {
        // Output may have been missed while no client was attached: look at every pane again.
        for (const w of this.#watches.all)
          markUrgent(w, w.lastCaptureAt === -Infinity ? 'first' : 'lifecycle');
        this.#queueUrgent();
      },
      detach: (client) => {
        if (this.#client === client) this.#client = null;
        this.#flow.attachedSession = null;
        for (const w of this.#watches.all) w.inFlight = false;
      },
    }).catch(() => undefined);
  }

  #dispatch(event: ConnectionEvent): void {
    const before = this.#connection;
    this.#connection = transition(before, event, this.#o.restartBackoff);
    if (this.#connection.state !== before.state) this.#publishHealth();
  }

  async #attach(client: ControlClient): Promise<void> {
    this.#client = client;
    this.#flow.paused.clear();
    this.#flow.off.clear();
    this.#flow.bytes.clear();
    client.notifications.subscribe((n) => this.#onNotification(n, client));
    try {
      const reply = await this.#command(
        client,
        commandLine('refresh-client', ['-f', `pause-after=${this.#o.pauseAfterSeconds}`]),
      );
      this.#flowControl = reply.ok;
      const session = await this.#command(
        client,
        commandLine('display-message', ['-p', '#{session_id} #{version}']),
      );
      if (session.ok && session.body.startsWith('$')) {
        const [id, version] = session.body.trim().split(' ');
        this.#flow.attachedSession = id!;
        this.#flow.outputOff = canTurnOutputOff(version ?? '');
      }
    } catch {
      // The client ended or did not answer: the loop sees it exit.
    }
  }

  #command(client: ControlClient, line: string): Promise<ControlReply> {
    return client.command(line, {
      timeoutMs: this.#o.commandTimeoutMs,
      signal: this.#abort.signal,
    });
  }

  #fireAndForget(client: ControlClient, line: string): void {
    this.#command(client, line).catch(() => undefined);
  }

  #onNotification(n: ControlNotification, client: ControlClient): void {
    const routed = routeNotification(n, client.currentSeq, this.#flow);
    if (routed.turnOff) {
      this.#fireAndForget(client, commandLine('refresh-client', ['-A', `${routed.turnOff}:off`]));
    }
    if (routed.urgent) this.#queueUrgent();
    else if (n.type === 'output') this.#captureSoon(n.paneId);
  }

  /**
   * A watched pane that printed after a quiet spell (not captured for an interval) is captured
   * `soonMs` later, with whatever else printed meanwhile, instead of at the next tick (up to a
   * tick away): the ticks pace only the panes that keep printing, which are still captured at
   * most once per interval.
   */
  #captureSoon(paneId: string): void {
    if (this.#soon || this.#ticking || this.#connection.state !== 'connected') return;
    const watching = this.#watches.pane(paneId);
    if (!watching) return;
    const now = performance.now();
    const spacing = this.#o.intervalMs - this.#o.tickMs / 2;
    let due = false;
    for (const w of watching) if (!w.inFlight && now - w.lastCaptureAt >= spacing) due = true;
    if (!due) return;
    this.#soon = this.#scheduler.schedule(() => {
      this.#soon = null;
      if (this.#ticking || this.#connection.state !== 'connected') return;
      if (this.#abort.signal.aborted) return;
      this.#ticking = true;
      this.#early = true;
      const at = performance.now();
      this.#tickStartedAt = at;
      void this.#runTick(at, 0, false)
        .catch(() => undefined)
        .finally(() => {
          this.#ticking = false;
          this.#early = false;
        });
    }, this.#o.soonMs);
  }

  // ---- sampling ---------------------------------------------------------------------------

  #queueUrgent(): void {
    if (this.#urgentQueued || this.#connection.state !== 'connected') return;
    this.#urgentQueued = true;
    // After the current burst of notifications: one batch for all of them.
    setImmediate(() => {
      this.#urgentQueued = false;
      const urgent = urgentBatch(this.#watches.all);
      if (urgent.length > 0) void this.#capturer.capture(urgent);
    });
  }

  #onTick(): void {
    const now = performance.now();
    const late = now - this.#lastTickAt - this.#o.tickMs;
    this.#lastTickAt = now;
    if (late > this.#o.intervalMs) {
      // This process could not run the source on time (its event loop was busy).
      this.#lateMs = late;
      this.#lastLateAt = now;
      this.#publishHealth();
    }
    const full = this.#subTicks++ % this.#subTicksPerInterval === 0;
    if (this.#ticking || this.#connection.state !== 'connected') {
      // A tick that meets an early capture in progress is not behind: that capture is its work.
      if (this.#ticking && !this.#early) {
        this.#skippedTicks += 1;
        this.#lastSkipAt = now;
      }
      // The chores of a skipped full tick wait for the next tick that runs.
      if (this.#ticking && full) this.#fullPending = true;
      if (full) this.#publishHealth();
      return;
    }
    this.#ticking = true;
    this.#tickStartedAt = now;
    const chores = full || this.#fullPending;
    this.#fullPending = false;
    void this.#runTick(now, late, chores)
      .catch(() => undefined)
      .finally(() => {
        this.#ticking = false;
        if (chores) this.#publishHealth();
      });
  }

  /**
   * One tick. Every tick captures the panes that changed and are due (see `planTick`). Once per
   * interval the tick also pauses floods, refreshes the process table, checks off-session
   * windows and the panes' fingerprints, and re-captures a share of the quiet panes.
   */
  async #runTick(now: number, lateMs: number, chores: boolean): Promise<void> {
    const client = this.#client;
    if (!client) return;
    if (chores) await this.#chores.run(client, now);
    const { chosen, refreshed } = planTick(this.#watches.all, {
      now,
      chores,
      intervalMs: this.#o.intervalMs,
      tickMs: this.#o.tickMs,
      recaptureMs: this.#o.recaptureMs,
      budget: this.#budget,
      paused: this.#flow.paused,
    });
    for (const w of refreshed) w.cause = 'refresh';
    if (chosen.length === 0) return;
    const started = performance.now();
    await this.#capturer.capture(chosen);
    this.#budget = nextBudget({
      budget: this.#budget,
      batch: chosen.length,
      tookMs: performance.now() - started,
      lateMs,
      intervalMs: this.#o.intervalMs,
      panes: this.#watches.size,
    });
  }

  // ---- health -----------------------------------------------------------------------------

  #snapshot(): SourceHealth {
    return healthSnapshot(this.#watches.all, {
      now: performance.now(),
      at: Date.now(),
      intervalMs: this.#o.intervalMs,
      tickMs: this.#o.tickMs,
      recaptureMs: this.#o.recaptureMs,
      connection: this.#connection.state,
      ticking: this.#ticking,
      tickStartedAt: this.#tickStartedAt,
      lastLateAt: this.#lastLateAt,
      lateMs: this.#lateMs,
      lastSkipAt: this.#lastSkipAt,
      budget: this.#budget,
      pausedPanes: this.#flow.paused.size,
      pauses: this.#flow.pauses,
      flowControl: this.#flowControl,
      skippedTicks: this.#skippedTicks,
      restarts: this.#connection.restarts,
      samples: this.#capturer.samples,
    });
  }

  #publishHealth(): void {
    if (this.#health?.closed === false) this.#health.next(this.#snapshot());
  }
}
