import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import {
  BehaviorSubject,
  Observable,
  asyncScheduler,
  interval,
  type SchedulerLike,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { isPanewardError, PanewardError } from '../errors.js';
import type { TransportOutcome } from '../schemas/probe.js';
import { ControlClient } from './control-client.js';
import { commandLine, type ControlNotification, type ControlReply } from './control-protocol.js';
import { isMissingTarget } from './internal/tmux-errors.js';
import { decideProcess } from './probe-outcome.js';
import { ProcessWatcher } from './process-watch.js';
import type { TmuxTransport } from './transport.js';
import type {
  FrameSource,
  PaneInfo,
  PaneProbe,
  PaneSampling,
  SampleCause,
  SourceHealth,
} from './types.js';

/** Options for {@link createControlModeSource}. */
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
  restartBackoff?: { initialMs: number; maxMs: number };
  /** Where /proc is; for tests. */
  procRoot?: string;
  /** Drives the tick and the backoff waits; default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

type Connection = SourceHealth['connection'];

interface Watch {
  readonly sampling: PaneSampling;
  readonly subscriber: Subscriber<PaneProbe>;
  paneId: string | null;
  windowId: string | null;
  sessionId: string | null;
  /** Output (or a pause, or an activity change) since the last capture. */
  dirty: boolean;
  /** `performance.now()` when it became dirty. */
  dirtySince: number;
  /** The client's event sequence number of the newest mark; a reply after it covers it. */
  dirtySeq: number;
  /** A lifecycle event or a first sample: captured at once, outside the tick. */
  urgent: boolean;
  cause: SampleCause;
  inFlight: boolean;
  lastCaptureAt: number;
  lastTransport: TransportOutcome | null;
  last: { text: string; ansi: string | undefined; key: string } | null;
  /** The pane's fingerprint at the last check, and when that check ran. */
  fingerprint: string | null;
  /** Pids of the pane's process tree at its last sample. */
  tree: number[];
}

const FACTS_FORMAT = [
  '#{pane_id}',
  '#{window_id}',
  '#{session_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_width}',
  '#{pane_height}',
  '#{pane_current_command}',
].join('\t');

const ACTIVITY_FORMAT = '#{window_id}\t#{window_activity}\t#{window_layout}';

// What tells a pane's screen changed when it printed nothing: the first fields are structural,
// the cursor and history move with output too.
const FINGERPRINT_FORMAT = [
  '#{pane_id}',
  '#{window_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_width}x#{pane_height}',
  '#{pane_in_mode}',
  '#{alternate_on}',
  '#{cursor_x},#{cursor_y}',
  '#{history_size}',
].join('\t');
const STRUCTURAL_FIELDS = 7;

/**
 * The control-mode source: one long-lived `tmux -C` client per tmux server carries every
 * capture. `%output` marks a pane dirty and the next tick captures only dirty panes, in one
 * batch of command lines whose replies are matched in order. A pane whose screen changed without
 * output is found by a fingerprint of every pane read every `refreshMs`, and every pane is
 * captured again every `recaptureMs`. Window and pane lifecycle notifications trigger a capture at once,
 * so a killed pane is reported as missing within a round trip. Processes are read from one
 * incremental /proc table per tick shared by every pane. The client is restarted with backoff
 * when it ends; while the server is gone every pane is reported `tmux_missing`.
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
  readonly #o: Required<
    Pick<
      ControlSourceOptions,
      | 'intervalMs'
      | 'refreshMs'
      | 'recaptureMs'
      | 'commandTimeoutMs'
      | 'pauseAfterSeconds'
      | 'floodBytesPerTick'
    >
  > &
    ControlSourceOptions;
  readonly #scheduler: SchedulerLike;
  readonly #abort = new AbortController();
  readonly #proc: ProcessWatcher | null;
  readonly #procError: string | null;
  readonly #watches = new Set<Watch>();
  readonly #byPane = new Map<string, Set<Watch>>();
  readonly #byWindow = new Map<string, Set<Watch>>();
  readonly #byPid = new Map<number, Set<Watch>>();
  /** Panes tmux or the source paused for this client. */
  readonly #paused = new Set<string>();
  /** Unwatched panes whose output the source turned off. */
  readonly #off = new Set<string>();
  readonly #bytes = new Map<string, number>();
  /** Off-session windows: their last `activity layout` key. */
  readonly #activity = new Map<string, string>();
  #activityCheckedAt = 0;
  #fingerprintsAt = performance.now();
  #client: ControlClient | null = null;
  #attachedSession: string | null = null;
  #connection: Connection = 'idle';
  #connecting: Promise<void> | null = null;
  #restarts = 0;
  #tick: Subscription | null = null;
  #ticking = false;
  #skippedTicks = 0;
  #lastTickAt = performance.now();
  /** When the tick in progress started (it waits on tmux). */
  #tickStartedAt = performance.now();
  readonly #tickMs: number;
  readonly #subTicksPerInterval: number;
  #subTicks = 0;
  #fullPending = false;
  #budget = Infinity;
  #urgentQueued = false;
  #samples = 0;
  #pauses = 0;
  #flowControl = false;
  /** Whether this server can turn a pane's output off safely (see {@link canTurnOutputOff}). */
  #outputOff = false;
  #lastSkipAt = -Infinity;
  #lastLateAt = -Infinity;
  #lateMs = 0;
  readonly #health: BehaviorSubject<SourceHealth>;

  constructor(options: ControlSourceOptions) {
    if (!(options.intervalMs > 0)) {
      throw new PanewardError(
        'invalid_input',
        `intervalMs must be positive, got ${options.intervalMs}`,
      );
    }
    this.#o = {
      refreshMs: 5000,
      recaptureMs: 60_000,
      commandTimeoutMs: 10_000,
      pauseAfterSeconds: 1,
      floodBytesPerTick: 64 * 1024,
      ...options,
    };
    // Every command in flight listens to it.
    setMaxListeners(0, this.#abort.signal);
    this.#tickMs = Math.min(
      this.#o.intervalMs,
      options.tickMs ?? Math.max(20, this.#o.intervalMs / 4),
    );
    this.#subTicksPerInterval = Math.max(1, Math.round(this.#o.intervalMs / this.#tickMs));
    this.transport = options.transport;
    this.#scheduler = options.scheduler ?? asyncScheduler;
    let proc: ProcessWatcher | null = null;
    let procError: string | null = null;
    try {
      proc = new ProcessWatcher({ procRoot: options.procRoot });
    } catch (error) {
      procError = error instanceof Error ? error.message : String(error);
    }
    this.#proc = proc;
    this.#procError = procError;
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
      const watch: Watch = {
        sampling,
        subscriber,
        paneId: sampling.target.startsWith('%') ? sampling.target : null,
        windowId: null,
        sessionId: null,
        dirty: false,
        dirtySince: 0,
        dirtySeq: 0,
        urgent: true,
        cause: 'first',
        inFlight: false,
        lastCaptureAt: -Infinity,
        lastTransport: null,
        last: null,
        fingerprint: null,
        tree: [],
      };
      this.#watches.add(watch);
      if (watch.paneId) this.#index(this.#byPane, watch.paneId, watch);
      this.#start();
      if (this.#connection === 'server_missing') this.#reportMissing(watch, 'no tmux server');
      else this.#queueUrgent();
      this.#publishHealth();
      return () => this.#forget(watch);
    });
  }

  async close(): Promise<void> {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort(new PanewardError('stopped', 'frame source closed'));
    this.#tick?.unsubscribe();
    this.#tick = null;
    for (const w of [...this.#watches]) w.subscriber.complete();
    const client = this.#client;
    this.#client = null;
    await client?.close();
    await this.#connecting?.catch(() => undefined);
    this.#setConnection('closed');
    this.#health.complete();
  }

  // ---- connection -------------------------------------------------------------------------

  #start(): void {
    if (this.#tick || this.#abort.signal.aborted) return;
    this.#tick = interval(this.#tickMs, this.#scheduler).subscribe(() => this.#onTick());
    this.#connecting = this.#connectLoop().catch(() => undefined);
  }

  async #connectLoop(): Promise<void> {
    const backoff = this.#o.restartBackoff ?? { initialMs: 100, maxMs: 5000 };
    let delay = backoff.initialMs;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      this.#setConnection(this.#connection === 'idle' ? 'connecting' : this.#connection);
      let sessions: Map<string, number>;
      try {
        sessions = await this.#listSessions();
      } catch (error) {
        if (signal.aborted) return;
        if (isPanewardError(error) && error.code === 'tmux_missing') {
          this.#setConnection('server_missing');
          for (const w of this.#watches) this.#reportMissing(w, error.message);
          await this.#sleep(Math.min(delay, 2000));
          delay = Math.min(delay * 2, backoff.maxMs);
          continue;
        }
        this.#setConnection('reconnecting');
        await this.#sleep(delay);
        delay = Math.min(delay * 2, backoff.maxMs);
        continue;
      }
      let client: ControlClient;
      try {
        client = await ControlClient.start({
          socketName: this.#o.socketName,
          socketPath: this.#o.socketPath,
          tmuxBinary: this.#o.tmuxBinary,
          session: this.#bestSession(sessions),
          signal,
        });
      } catch {
        if (signal.aborted) return;
        this.#setConnection('reconnecting');
        await this.#sleep(delay);
        delay = Math.min(delay * 2, backoff.maxMs);
        continue;
      }
      if (signal.aborted) {
        await client.close();
        return;
      }
      const connectedAt = performance.now();
      await this.#attach(client);
      await client.exited;
      this.#detach(client);
      if (signal.aborted) return;
      this.#restarts += 1;
      this.#setConnection('reconnecting');
      // A client that ran a while was fine; a quick re-attach is the right first answer.
      if (performance.now() - connectedAt > 10_000) delay = backoff.initialMs;
      await this.#sleep(delay);
      delay = Math.min(delay * 2, backoff.maxMs);
    }
  }

  /** Sessions by id with how many watched panes each held at their last sample. */
  async #listSessions(): Promise<Map<string, number>> {
    const out = await this.transport.run(['list-sessions', '-F', '#{session_id}'], {
      signal: this.#abort.signal,
      timeoutMs: 5000,
    });
    const sessions = new Map<string, number>();
    for (const id of out.split('\n')) if (id.startsWith('$')) sessions.set(id, 0);
    for (const w of this.#watches) {
      if (w.sessionId && sessions.has(w.sessionId)) {
        sessions.set(w.sessionId, (sessions.get(w.sessionId) ?? 0) + 1);
      }
    }
    if (sessions.size === 0) throw new PanewardError('tmux_missing', 'tmux server has no sessions');
    return sessions;
  }

  /** The session holding most watched panes: their output is what `%output` reports. */
  #bestSession(sessions: Map<string, number>): string {
    let best: string | null = null;
    let most = -1;
    for (const [id, n] of sessions) {
      if (n > most) [best, most] = [id, n];
    }
    return best ?? '';
  }

  async #attach(client: ControlClient): Promise<void> {
    this.#client = client;
    this.#paused.clear();
    this.#off.clear();
    this.#bytes.clear();
    client.notifications.subscribe((n) => this.#onNotification(n, client));
    try {
      const reply = await client.command(
        commandLine('refresh-client', ['-f', `pause-after=${this.#o.pauseAfterSeconds}`]),
        { timeoutMs: this.#o.commandTimeoutMs, signal: this.#abort.signal },
      );
      this.#flowControl = reply.ok;
      const session = await client.command(
        commandLine('display-message', ['-p', '#{session_id} #{version}']),
        { timeoutMs: this.#o.commandTimeoutMs, signal: this.#abort.signal },
      );
      if (session.ok && session.body.startsWith('$')) {
        const [id, version] = session.body.trim().split(' ');
        this.#attachedSession = id!;
        this.#outputOff = canTurnOutputOff(version ?? '');
      }
    } catch {
      // The client ended or did not answer: the loop sees it exit.
    }
    this.#setConnection('connected');
    // Output may have been missed while no client was attached: look at every pane again.
    for (const w of this.#watches)
      this.#markUrgent(w, w.lastCaptureAt === -Infinity ? 'first' : 'lifecycle');
    this.#queueUrgent();
  }

  #detach(client: ControlClient): void {
    if (this.#client === client) this.#client = null;
    this.#attachedSession = null;
    for (const w of this.#watches) w.inFlight = false;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#abort.signal;
      if (signal.aborted) return resolve();
      const sub = this.#scheduler.schedule(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        sub.unsubscribe();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #setConnection(c: Connection): void {
    if (this.#connection === c) return;
    this.#connection = c;
    this.#publishHealth();
  }

  // ---- notifications ----------------------------------------------------------------------

  #onNotification(n: ControlNotification, client: ControlClient): void {
    const seq = client.currentSeq;
    switch (n.type) {
      case 'output': {
        this.#bytes.set(n.paneId, (this.#bytes.get(n.paneId) ?? 0) + n.bytes);
        const watches = this.#byPane.get(n.paneId);
        if (watches) {
          for (const w of watches) this.#markDirty(w, 'output', seq);
        } else if (this.#outputOff && !this.#off.has(n.paneId) && !this.#anyUnresolved()) {
          // Nobody watches this pane: stop tmux sending its output to this client.
          this.#off.add(n.paneId);
          this.#fireAndForget(client, commandLine('refresh-client', ['-A', `${n.paneId}:off`]));
        }
        return;
      }
      case 'pause':
        this.#paused.add(n.paneId);
        this.#pauses += 1;
        for (const w of this.#byPane.get(n.paneId) ?? []) this.#markDirty(w, 'flow', seq);
        return;
      case 'continue':
        this.#paused.delete(n.paneId);
        return;
      case 'pane-mode-changed':
        for (const w of this.#byPane.get(n.paneId) ?? []) this.#markUrgent(w, 'lifecycle');
        break;
      case 'layout-change':
      case 'window-close':
      case 'unlinked-window-close':
        for (const w of this.#byWindow.get(n.windowId) ?? []) this.#markUrgent(w, 'lifecycle');
        if (n.type !== 'layout-change') this.#activity.delete(n.windowId);
        break;
      case 'window-add':
      case 'unlinked-window-add':
      case 'sessions-changed':
      case 'session-renamed':
        // A target by name may now mean another pane, and a missing one may exist again.
        for (const w of this.#watches) {
          if (!w.sampling.target.startsWith('%') || w.lastTransport !== 'tmux_up') {
            this.#markUrgent(w, 'lifecycle');
          }
        }
        break;
      case 'session-changed':
        this.#attachedSession = n.sessionId;
        break;
      default:
        return;
    }
    this.#queueUrgent();
  }

  #anyUnresolved(): boolean {
    for (const w of this.#watches) if (w.paneId === null) return true;
    return false;
  }

  #markDirty(w: Watch, cause: SampleCause, seq: number): void {
    if (!w.dirty) {
      w.dirty = true;
      w.dirtySince = performance.now();
      w.cause = cause;
    }
    w.dirtySeq = seq;
  }

  #markUrgent(w: Watch, cause: SampleCause): void {
    if (!w.urgent) w.cause = cause;
    w.urgent = true;
  }

  #fireAndForget(client: ControlClient, line: string): void {
    client
      .command(line, { timeoutMs: this.#o.commandTimeoutMs, signal: this.#abort.signal })
      .catch(() => undefined);
  }

  // ---- sampling ---------------------------------------------------------------------------

  #queueUrgent(): void {
    if (this.#urgentQueued || this.#connection !== 'connected') return;
    this.#urgentQueued = true;
    // After the current burst of notifications: one batch for all of them.
    setImmediate(() => {
      this.#urgentQueued = false;
      const urgent = [...this.#watches].filter((w) => w.urgent && !w.inFlight);
      if (urgent.length > 0) void this.#capture(urgent);
    });
  }

  #onTick(): void {
    const now = performance.now();
    const late = now - this.#lastTickAt - this.#tickMs;
    this.#lastTickAt = now;
    if (late > this.#o.intervalMs) {
      // This process could not run the source on time (its event loop was busy).
      this.#lateMs = late;
      this.#lastLateAt = now;
      this.#publishHealth();
    }
    const full = this.#subTicks++ % this.#subTicksPerInterval === 0;
    if (this.#ticking || this.#connection !== 'connected') {
      if (this.#ticking) {
        this.#skippedTicks += 1;
        this.#lastSkipAt = now;
        // The chores of a skipped full tick wait for the next tick that runs.
        if (full) this.#fullPending = true;
      }
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
   * One tick. Every tick captures the panes that changed and are due (a pane is captured at
   * most once per interval). Once per interval the tick also pauses floods, refreshes the
   * process table, checks off-session windows, and re-captures a share of the quiet panes.
   */
  async #runTick(now: number, lateMs: number, chores: boolean): Promise<void> {
    const client = this.#client;
    if (!client) return;
    if (chores) {
      this.#pauseFloods(client);
      // One /proc listing per interval: a process that ended under a quiet pane (no output,
      // no notification) makes the pane due.
      const procReady = this.#refreshProcesses();
      if (this.#hasOffSession()) await this.#checkActivity(client);
      if (now - this.#fingerprintsAt >= this.#o.refreshMs) await this.#checkPanes(client, now);
      const changes = await procReady;
      if (changes) this.#onProcessChanges(changes.born, changes.died);
    }

    const dirty: Watch[] = [];
    const due: Watch[] = [];
    // A pane that keeps changing is captured once per interval, on the tick nearest its turn.
    const spacing = this.#o.intervalMs - this.#tickMs / 2;
    for (const w of this.#watches) {
      if (w.inFlight) continue;
      const changed = w.dirty || (w.paneId !== null && this.#paused.has(w.paneId));
      if (w.urgent || (changed && now - w.lastCaptureAt >= spacing)) dirty.push(w);
      else if (chores && !changed && now - w.lastCaptureAt >= this.#o.recaptureMs) due.push(w);
    }
    dirty.sort((a, b) => Number(b.urgent) - Number(a.urgent) || a.dirtySince - b.dirtySince);
    due.sort((a, b) => a.lastCaptureAt - b.lastCaptureAt);
    // Re-captures of quiet panes are spread over the refresh period rather than bunched.
    const refreshShare =
      Math.ceil((this.#watches.size * this.#o.intervalMs) / this.#o.recaptureMs) * 2;
    const budget = this.#budget;
    const chosen = dirty.slice(0, Math.max(budget, dirty.filter((w) => w.urgent).length));
    const room = Math.max(0, Math.min(budget - chosen.length, refreshShare));
    for (const w of due.slice(0, room)) {
      w.cause = 'refresh';
      chosen.push(w);
    }
    if (chosen.length === 0) return;
    const started = performance.now();
    await this.#capture(chosen);
    const took = performance.now() - started;
    // Keep a batch within about half an interval, quiet panes' re-captures shed first (they
    // only take what room is left); grow back when there is room.
    const target = this.#o.intervalMs * 0.5;
    if (took > target || lateMs > this.#o.intervalMs) {
      this.#budget = Math.max(8, Math.floor((chosen.length * target) / Math.max(took, lateMs, 1)));
    } else if (took < target / 2 && this.#budget !== Infinity) {
      this.#budget =
        this.#budget * 1.5 >= this.#watches.size ? Infinity : Math.ceil(this.#budget * 1.5);
    }
  }

  /** Pauses panes that sent more than the flood threshold since the last tick. */
  #pauseFloods(client: ControlClient): void {
    for (const [paneId, bytes] of this.#bytes) {
      if (bytes > this.#o.floodBytesPerTick && !this.#paused.has(paneId)) {
        this.#paused.add(paneId);
        this.#pauses += 1;
        this.#fireAndForget(client, commandLine('refresh-client', ['-A', `${paneId}:pause`]));
      }
    }
    this.#bytes.clear();
  }

  #hasOffSession(): boolean {
    if (this.#attachedSession === null) return false;
    for (const w of this.#watches) {
      if (w.sessionId !== null && w.sessionId !== this.#attachedSession) return true;
    }
    return false;
  }

  /**
   * Windows outside the attached session send no `%output`: their activity time (seconds) and
   * layout tell which changed. A window active in the second of the previous check or later may
   * have changed after it, so it counts as dirty too.
   */
  async #checkActivity(client: ControlClient): Promise<void> {
    let reply: ControlReply;
    try {
      reply = await client.command(commandLine('list-windows', ['-a', '-F', ACTIVITY_FORMAT]), {
        timeoutMs: this.#o.commandTimeoutMs,
        signal: this.#abort.signal,
      });
    } catch {
      return;
    }
    if (!reply.ok) return;
    const since = Math.floor(this.#activityCheckedAt / 1000);
    this.#activityCheckedAt = Date.now();
    const seq = client.currentSeq;
    for (const line of reply.body.split('\n')) {
      const [windowId = '', activity = '', layout = ''] = line.split('\t');
      const watches = this.#byWindow.get(windowId);
      if (!watches) continue;
      const key = `${activity} ${layout}`;
      const changed = this.#activity.get(windowId) !== key || Number(activity) >= since;
      this.#activity.set(windowId, key);
      if (!changed) continue;
      for (const w of watches) {
        if (w.sessionId !== this.#attachedSession) this.#markDirty(w, 'output', seq);
      }
    }
  }

  /**
   * One `list-panes -a`: a watched pane whose fingerprint changed is captured. A pane captured
   * since the previous check is compared on its structural fields only (its cursor moved with
   * the output that was captured); a watched pane that is not listed is captured at once.
   */
  async #checkPanes(client: ControlClient, now: number): Promise<void> {
    const previousAt = this.#fingerprintsAt;
    this.#fingerprintsAt = now;
    let reply: ControlReply;
    try {
      reply = await client.command(commandLine('list-panes', ['-a', '-F', FINGERPRINT_FORMAT]), {
        timeoutMs: this.#o.commandTimeoutMs,
        signal: this.#abort.signal,
      });
    } catch (error) {
      // tmux silent for the whole timeout (stopped, hung): every pane is told, as a capture
      // that went unanswered would be; panes that print nothing would otherwise never ask.
      for (const w of this.#watches) this.#unanswered(w, client, error);
      return;
    }
    if (!reply.ok) return;
    const seq = client.currentSeq;
    const listed = new Set<string>();
    for (const line of reply.body.split('\n')) {
      const tab = line.indexOf('\t');
      const paneId = line.slice(0, tab);
      listed.add(paneId);
      const watches = this.#byPane.get(paneId);
      if (!watches) continue;
      for (const w of watches) {
        const before = w.fingerprint;
        w.fingerprint = line;
        if (before === null || before === line) continue;
        const capturedSince = w.lastCaptureAt >= previousAt;
        if (capturedSince && structural(before) === structural(line)) continue;
        this.#markDirty(w, 'lifecycle', seq);
      }
    }
    for (const w of this.#watches) {
      if (w.paneId !== null && w.lastTransport === 'tmux_up' && !listed.has(w.paneId)) {
        this.#markUrgent(w, 'lifecycle');
      }
    }
    this.#queueUrgent();
  }

  /** Captures `watches` in one batch and emits a sample for each that was answered. */
  async #capture(watches: Watch[]): Promise<void> {
    const client = this.#client;
    if (!client || watches.length === 0) return;
    const lines: string[] = [];
    const plan = watches.map((w) => {
      w.inFlight = true;
      const t = w.sampling.target;
      const first = lines.length;
      lines.push(commandLine('display-message', ['-p', '-t', t, FACTS_FORMAT]));
      lines.push(commandLine('capture-pane', ['-p', '-t', t]));
      if (w.sampling.includeAnsi) lines.push(commandLine('capture-pane', ['-p', '-e', '-t', t]));
      const paused = w.paneId !== null && this.#paused.has(w.paneId);
      // Continued right after its capture: output after it marks the pane again.
      const resume = paused ? lines.length : -1;
      if (paused) lines.push(commandLine('refresh-client', ['-A', `${w.paneId}:continue`]));
      const cause: SampleCause = w.urgent || w.dirty ? w.cause : 'refresh';
      return { w, first, resume, paneId: w.paneId, cause };
    });
    const sentAt = performance.now();
    const procReady = this.#refreshProcesses();
    const replies = client.commands(lines, {
      timeoutMs: this.#o.commandTimeoutMs,
      signal: this.#abort.signal,
    });
    const settled = await Promise.allSettled(replies);
    const changes = await procReady;
    if (changes) this.#onProcessChanges(changes.born, changes.died);
    for (const { w, first, resume, paneId, cause } of plan) {
      w.inFlight = false;
      const resumed = resume >= 0 ? settled[resume] : undefined;
      if (paneId && resumed?.status === 'fulfilled' && resumed.value.ok)
        this.#paused.delete(paneId);
      if (!this.#watches.has(w)) continue;
      const facts = settled[first]!;
      const screen = settled[first + 1]!;
      const ansi = w.sampling.includeAnsi ? settled[first + 2] : undefined;
      if (screen.status === 'rejected' || facts.status === 'rejected') {
        const error =
          screen.status === 'rejected' ? screen.reason : (facts as PromiseRejectedResult).reason;
        this.#unanswered(w, client, error);
        continue;
      }
      const answeredSeq = screen.value.seq;
      if (w.dirty && w.dirtySeq < answeredSeq) w.dirty = false;
      w.urgent = false;
      w.lastCaptureAt = sentAt;
      const probe = await this.#probe(w, facts.value, screen.value, ansi, sentAt, cause);
      this.#emit(w, probe);
    }
    if ([...this.#watches].some((w) => w.urgent && !w.inFlight)) this.#queueUrgent();
  }

  /**
   * A reply that did not come. If tmux has been silent for the whole timeout it is hung: the
   * client is restarted and the pane told (`probe_error`, tmux_timeout). Otherwise the source is
   * behind or restarting: the pane stays due and gets no sample.
   */
  #unanswered(w: Watch, client: ControlClient, error: unknown): void {
    const code = isPanewardError(error) ? error.code : 'internal';
    if (code !== 'tmux_timeout') return;
    // The client times out on silence, read after this process's own I/O; a stall of this
    // process that ended just now is not tmux's silence.
    const silentMs = performance.now() - Math.max(client.lastReadAt, this.#lastLateAt);
    if (silentMs < this.#o.commandTimeoutMs) return;
    this.#emit(w, {
      transport: 'probe_error',
      process: 'unknown',
      capture: null,
      pane: null,
      pids: [],
      error: {
        kind: 'tmux_timeout',
        message: `tmux did not answer for ${Math.round(silentMs)} ms`,
      },
      tookMs: Math.round(silentMs),
      sampledAt: Date.now(),
      cause: w.cause,
    });
    void client.close();
  }

  #refreshProcesses(): Promise<{
    born: ReadonlyArray<{ pid: number; ppid: number }>;
    died: readonly number[];
  } | null> {
    if (!this.#proc) return Promise.resolve(null);
    // One listing per tick is enough: a table refreshed within half an interval is reused.
    if (performance.now() - this.#proc.refreshedAt < this.#o.intervalMs / 2) {
      return Promise.resolve(null);
    }
    return this.#proc.refresh().catch(() => null);
  }

  /** Panes whose process tree lost or gained a process are looked at again at the next tick. */
  #onProcessChanges(
    born: ReadonlyArray<{ pid: number; ppid: number }>,
    died: readonly number[],
  ): void {
    const seq = this.#client?.currentSeq ?? 0;
    for (const pid of died) {
      for (const w of this.#byPid.get(pid) ?? []) this.#markDirty(w, 'process', seq);
    }
    for (const { ppid } of born) {
      for (const w of this.#byPid.get(ppid) ?? []) this.#markDirty(w, 'process', seq);
    }
  }

  async #probe(
    w: Watch,
    factsReply: ControlReply,
    screenReply: ControlReply,
    ansiResult: PromiseSettledResult<ControlReply> | undefined,
    sentAt: number,
    cause: SampleCause,
  ): Promise<PaneProbe> {
    const base = {
      tookMs: Math.round((performance.now() - sentAt) * 1000) / 1000,
      sampledAt: Math.round(performance.timeOrigin + sentAt),
      cause,
    };
    // capture-pane decides whether the pane exists: display-message falls back to another pane.
    const failed = !screenReply.ok
      ? screenReply
      : ansiResult?.status === 'fulfilled' && !ansiResult.value.ok
        ? ansiResult.value
        : null;
    if (failed || ansiResult?.status === 'rejected') {
      const message = failed?.body ?? 'ANSI capture not answered';
      const missing = failed !== null && isMissingTarget(failed.body);
      this.#setTree(w, []);
      return {
        ...base,
        transport: missing ? 'tmux_missing' : 'probe_error',
        process: 'unknown',
        capture: null,
        pane: null,
        pids: [],
        error: { kind: missing ? 'tmux_missing' : 'tmux_failed', message },
      };
    }
    const facts = factsReply.ok ? parseFacts(factsReply.body) : null;
    if (!facts) {
      return {
        ...base,
        transport: 'probe_error',
        process: 'unknown',
        capture: null,
        pane: null,
        pids: [],
        error: { kind: 'parse', message: 'unexpected tmux output' },
      };
    }
    this.#locate(w, facts);
    const capture: { text: string; ansi?: string } = { text: screenReply.body };
    if (ansiResult?.status === 'fulfilled') capture.ansi = ansiResult.value.body;
    const pane = facts.pane;
    const proc = this.#proc;
    const verdict = await decideProcess(pane, w.sampling.processNames, (pid, names) => {
      if (!proc) throw new Error(this.#procError ?? 'no /proc');
      return proc.match(pid, names);
    });
    if (verdict.tree) this.#setTree(w, verdict.tree);
    const { process, pids, error } = verdict;
    return { ...base, transport: 'tmux_up', process, capture, pane, pids, error };
  }

  /** Emits a sample, marking it `unchanged` when it equals the previous one of this watch. */
  #emit(w: Watch, probe: PaneProbe): void {
    let out = probe;
    if (probe.capture) {
      const key = JSON.stringify([
        probe.transport,
        probe.process,
        probe.pane,
        probe.pids,
        probe.error,
      ]);
      const last = w.last;
      if (
        last &&
        last.key === key &&
        last.text === probe.capture.text &&
        last.ansi === probe.capture.ansi
      ) {
        // Hand out the strings already held, so an unchanged screen is not kept twice.
        const capture: { text: string; ansi?: string } = { text: last.text };
        if (last.ansi !== undefined) capture.ansi = last.ansi;
        out = { ...probe, capture, unchanged: true };
      } else {
        w.last = { text: probe.capture.text, ansi: probe.capture.ansi, key };
        out = { ...probe, unchanged: false };
      }
    } else {
      w.last = null;
      out = {
        ...probe,
        unchanged: w.lastTransport === probe.transport && probe.transport !== 'tmux_up',
      };
    }
    w.lastTransport = probe.transport;
    this.#samples += 1;
    w.subscriber.next(out);
  }

  #reportMissing(w: Watch, message: string): void {
    if (w.lastTransport === 'tmux_missing') return;
    w.urgent = false;
    w.dirty = false;
    this.#emit(w, {
      transport: 'tmux_missing',
      process: 'unknown',
      capture: null,
      pane: null,
      pids: [],
      error: { kind: 'tmux_missing', message },
      tookMs: 0,
      sampledAt: Date.now(),
      cause: 'server',
    });
  }

  // ---- indexes ----------------------------------------------------------------------------

  #locate(w: Watch, facts: Facts): void {
    if (w.paneId !== facts.pane.id) {
      if (w.paneId) this.#unindex(this.#byPane, w.paneId, w);
      w.paneId = facts.pane.id;
      this.#index(this.#byPane, w.paneId, w);
      if (this.#off.delete(w.paneId) && this.#client) {
        this.#fireAndForget(this.#client, commandLine('refresh-client', ['-A', `${w.paneId}:on`]));
      }
    }
    if (w.windowId !== facts.windowId) {
      if (w.windowId) this.#unindex(this.#byWindow, w.windowId, w);
      w.windowId = facts.windowId;
      this.#index(this.#byWindow, w.windowId, w);
    }
    w.sessionId = facts.sessionId;
  }

  #setTree(w: Watch, tree: number[]): void {
    for (const pid of w.tree) this.#unindex(this.#byPid, pid, w);
    w.tree = tree;
    for (const pid of tree) this.#index(this.#byPid, pid, w);
  }

  #forget(w: Watch): void {
    this.#watches.delete(w);
    if (w.paneId) this.#unindex(this.#byPane, w.paneId, w);
    if (w.windowId) this.#unindex(this.#byWindow, w.windowId, w);
    this.#setTree(w, []);
    this.#publishHealth();
  }

  #index<K>(map: Map<K, Set<Watch>>, key: K, w: Watch): void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(w);
  }

  #unindex<K>(map: Map<K, Set<Watch>>, key: K, w: Watch): void {
    const set = map.get(key);
    set?.delete(w);
    if (set?.size === 0) map.delete(key);
  }

  // ---- health -----------------------------------------------------------------------------

  #snapshot(): SourceHealth {
    const now = performance.now();
    let backlog = 0;
    let lagMs = 0;
    let oldestCapture = now;
    for (const w of this.#watches ?? []) {
      if (w.dirty || w.urgent) {
        backlog += 1;
        // Due one interval after its previous capture, or when it changed if later; a tick late
        // is still on time.
        const due = Math.max(w.dirtySince, w.lastCaptureAt + this.#o.intervalMs);
        if (w.dirty) lagMs = Math.max(lagMs, now - due - this.#tickMs);
      }
      if (w.lastCaptureAt !== -Infinity) oldestCapture = Math.min(oldestCapture, w.lastCaptureAt);
    }
    // A tick still waiting on tmux after an interval: every pane is behind by as much (a
    // stopped or hung tmux server shows here before its commands time out).
    if (this.#ticking) {
      lagMs = Math.max(lagMs, now - this.#tickStartedAt - this.#o.intervalMs);
    }
    // A tick that came late (this process was busy) counts for two intervals.
    if (now - this.#lastLateAt < 2 * this.#o.intervalMs) lagMs = Math.max(lagMs, this.#lateMs);
    lagMs = Math.max(0, Math.round(lagMs));
    const refreshAgeMs = Math.round(now - oldestCapture);
    return {
      kind: 'control',
      connection: this.#connection,
      // Behind by more than an interval, or unable to start a tick on time just now.
      lagging: lagMs > this.#o.intervalMs || now - this.#lastSkipAt < 2 * this.#o.intervalMs,
      lagMs,
      degraded: this.#budget !== Infinity || refreshAgeMs > 2 * this.#o.recaptureMs,
      refreshAgeMs,
      panes: this.#watches?.size ?? 0,
      backlog,
      pausedPanes: this.#paused?.size ?? 0,
      pauses: this.#pauses,
      flowControl: this.#flowControl,
      skippedTicks: this.#skippedTicks,
      restarts: this.#restarts,
      samples: this.#samples,
      at: Date.now(),
    };
  }

  #publishHealth(): void {
    if (this.#health?.closed === false) this.#health.next(this.#snapshot());
  }
}

/**
 * Whether a tmux server of this `#{version}` can turn a pane's output off for a client
 * (`refresh-client -A %N:off`) without risk. Before 3.7, turning off a pane whose output was
 * still queued for the client left the queued blocks pointing at data tmux later drained, and
 * the server read out of bounds when it wrote them (tmux commit cae229cad, "Discard queued data
 * and clear offsets when turning pane off"): the whole server, every pane with it, crashed with
 * SIGSEGV. Seen here on 3.3a when the supervisor read its client slowly. Development builds
 * (`next-3.8`, `master`) count as new.
 */
export function canTurnOutputOff(version: string): boolean {
  if (/^(next-|master)/.test(version)) return true;
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 3 || (major === 3 && minor >= 7);
}

function structural(fingerprint: string): string {
  return fingerprint.split('\t', STRUCTURAL_FIELDS).join('\t');
}

interface Facts {
  pane: PaneInfo;
  windowId: string;
  sessionId: string;
}

function parseFacts(body: string): Facts | null {
  const [id = '', windowId = '', sessionId = '', pid, dead, width, height, ...command] =
    body.split('\t');
  const pane: PaneInfo = {
    id,
    pid: Number(pid),
    dead: dead === '1',
    currentCommand: command.join('\t'),
    width: Number(width),
    height: Number(height),
  };
  if (!id.startsWith('%') || !windowId.startsWith('@') || !sessionId.startsWith('$')) return null;
  if (![pane.pid, pane.width, pane.height].every(Number.isInteger)) return null;
  return { pane, windowId, sessionId };
}
