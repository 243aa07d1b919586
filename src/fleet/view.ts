import { randomUUID } from 'node:crypto';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { RequestError, TimeoutError } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { NEVER, Subject, type Observable, type Subscription } from 'rxjs';
import { PanewardError, type PanewardErrorCode } from '../errors.js';
import { MAX_TIMER_DELAY_MS } from '../internal/long-timer.js';
import type { JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { AttachCommand, SupervisorPort } from '../server/port.js';
import type { FleetHost } from '../server/schemas.js';
import type { Telemetry, TurnResult } from '../supervisor/supervisor.js';
import {
  DEFAULT_LIMITS,
  ensureFleet,
  FleetConnection,
  NATS_TIMEOUT_MS,
  type FleetHandles,
  type FleetLimits,
} from './connection.js';
import { withTimeout } from './edge.js';
import { FleetFeed } from './feed.js';
import { commandSubject, parseStateKey, qualify, stateKey, STREAM } from './names.js';
import {
  CommandReply,
  Heartbeat,
  StateEntry,
  type CommandOp,
  type CommandRequest,
} from './schemas.js';

export interface FleetViewOptions {
  /** NATS server URL(s). */
  nats: string | string[];
  limits?: Partial<FleetLimits>;
  logger?: Logger;
  /** Latest stream records kept in memory for SSE readers that keep up; default 10000. */
  tailSize?: number;
  /** Records kept per terminal for `history`; default 500. */
  recentPerTerminal?: number;
  /** How long a command (other than waiting for a turn) may take; default 10 s. */
  commandTimeoutSeconds?: number;
}

interface HostSeen {
  beat: Heartbeat | null;
  /** Epoch ms (this process's clock) the latest heartbeat arrived; 0: none since start. */
  seenAt: number;
  /** The edge removed its heartbeat: it stopped. */
  stopped: boolean;
}

interface TerminalSeen {
  host: string;
  terminalId: string;
  state: TerminalState;
}

/** Where a terminal's host stands, as every view of it and `/healthz` say. */
export type HostView = FleetHost;

/**
 * Every host of a fleet as one supervisor: the latest state of each terminal from the state
 * bucket, the records of all hosts from the stream (SSE ids are stream sequences), and commands
 * routed to the host that owns the terminal over request/reply. Terminal ids are qualified by
 * host (`host/id`). A host whose heartbeat expired shows its terminals `unavailable` with the
 * reason `host_unreachable` until it is back. Serve it with `createHttpApp(view)`.
 */
export class FleetView implements SupervisorPort {
  readonly journal: FleetFeed;
  readonly telemetry$: Observable<Telemetry> = NEVER;
  private readonly conn: FleetConnection;
  private readonly limits: FleetLimits;
  private readonly log: Logger | undefined;
  private readonly commandMs: number;
  private readonly terminals = new Map<string, TerminalSeen>();
  private readonly hosts = new Map<string, HostSeen>();
  private readonly stop$ = new Subject<void>();
  private handles: Omit<FleetHandles, 'nc'> | null = null;
  private js: JetStreamClient | null = null;
  private stopped = false;
  private readonly subs: Subscription[] = [];
  private generation: Promise<void> | null = null;
  private running: Array<{ stop(): void }> = [];
  private readonly tailSize: number;

  constructor(options: FleetViewOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.log = options.logger?.child({ fleet: true });
    this.commandMs = (options.commandTimeoutSeconds ?? 10) * 1000;
    this.tailSize = options.tailSize ?? 10_000;
    this.journal = new FleetFeed(
      this.tailSize,
      options.recentPerTerminal ?? 500,
      () => this.js,
      this.log,
    );
    const servers = Array.isArray(options.nats) ? options.nats.join(',') : options.nats;
    this.conn = new FleetConnection(servers, 'paneward-fleet', this.log);
    // Each (re)connection reads everything afresh: nothing seen through a stale watcher stays.
    this.subs.push(
      this.conn.connected$.subscribe((up) => {
        if (up) this.generation = this.follow();
        else this.halt();
      }),
    );
  }

  /** Resolves once the view has read the buckets (or after `ms`). */
  async ready(ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && !this.stopped) {
      if (this.generation) {
        await withTimeout(this.generation, Math.max(1, deadline - Date.now())).catch(() => {});
        if (this.handles) return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  get connected(): boolean {
    return this.conn.connected;
  }

  // ---- reads ---------------------------------------------------------------------------------

  ids(): string[] {
    return [...this.terminals.keys()].sort();
  }

  get(id: string): TerminalState {
    const t = this.terminal(id);
    const host = this.hostView(t.host);
    if (host.reachable) return { ...t.state, terminalId: id };
    const why = this.unreachableWhy(t.host);
    return {
      ...t.state,
      terminalId: id,
      diagnostics: {
        ...t.state.diagnostics,
        availability: 'unavailable',
        error: { kind: 'host_unreachable', message: why },
      },
      readiness: { ...t.state.readiness, status: 'unknown' },
      turn: { ...t.state.turn, phase: 'unknown' },
    };
  }

  viewDetails(id: string): Record<string, unknown> {
    return { host: this.hostView(this.terminal(id).host) };
  }

  healthDetails(): Record<string, unknown> {
    const names = new Set([
      ...this.hosts.keys(),
      ...[...this.terminals.values()].map((t) => t.host),
    ]);
    return {
      fleet: {
        nats: { connected: this.conn.connected },
        hosts: [...names].sort().map((h) => this.hostView(h)),
      },
    };
  }

  history(id: string, limit?: number): JournalRecord[] {
    this.terminal(id);
    return this.journal.history(id, limit);
  }

  /** Every host the view knows of, and whether it is reachable now. */
  hostViews(): HostView[] {
    return (this.healthDetails().fleet as { hosts: HostView[] }).hosts;
  }

  // ---- commands ------------------------------------------------------------------------------

  async attach(request: AttachCommand): Promise<string> {
    const { host, ...body } = request;
    const known = [...this.hosts.keys()].sort();
    if (host === undefined) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`host\`: a fleet needs the host whose pane it is (known: ${known.join(', ') || 'none'})`,
      );
    }
    if (!this.hosts.has(host)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`host\`: no host ${host} in the fleet (known: ${known.join(', ') || 'none'})`,
      );
    }
    const value = (await this.command(host, 'attach', { body }, this.commandMs * 2)) as {
      terminalId: string;
      state: TerminalState;
    };
    const id = qualify(host, value.terminalId);
    // The state bucket will say the same shortly; the answer is not made to wait for it.
    if (!this.terminals.has(id)) {
      this.terminals.set(id, { host, terminalId: value.terminalId, state: value.state });
    }
    return id;
  }

  async submit(id: string, text: string, opts: { force?: boolean } = {}): Promise<string> {
    const t = this.terminal(id);
    const value = (await this.command(t.host, 'input', {
      id: t.terminalId,
      body: { text, force: opts.force ?? false },
    })) as { turnId: string };
    return value.turnId;
  }

  async waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const t = this.terminal(id);
    // The request waits this long plus the command's own time: kept within what a timer holds.
    const timeoutMs = Math.min(opts.timeoutMs ?? 600_000, MAX_TIMER_DELAY_MS - this.commandMs);
    const wait = this.command(
      t.host,
      'wait',
      { id: t.terminalId, turnId, timeoutMs },
      timeoutMs + this.commandMs,
    ) as Promise<TurnResult>;
    if (!opts.signal) return wait;
    const signal = opts.signal;
    return new Promise<TurnResult>((resolve, reject) => {
      const onAbort = () => reject(new PanewardError('aborted', 'aborted'));
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      wait.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async interrupt(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'interrupt', { id: t.terminalId });
  }

  async resume(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'resume', { id: t.terminalId });
  }

  /** The pane's latest capture, asked of its host (screens are never stored in NATS). */
  async screen(id: string): Promise<{ text: string; t: number } | null> {
    const t = this.terminal(id);
    return (await this.command(t.host, 'screen', { id: t.terminalId })) as {
      text: string;
      t: number;
    } | null;
  }

  async detach(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'detach', { id: t.terminalId });
    this.terminals.delete(id);
    this.journal.forget(id);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stop$.next();
    for (const s of this.subs) s.unsubscribe();
    this.halt();
    await this.conn.close();
    this.journal.close();
  }

  /**
   * Sends one command to the host that owns the terminal and returns its answer. Never sent
   * twice: a command that cannot be delivered fails at once (`host_unreachable`, 503); one that
   * gets no answer in time fails with `host_timeout` (504), saying it may have run.
   */
  private async command(
    host: string,
    op: CommandOp,
    payload: Record<string, unknown>,
    timeoutMs = this.commandMs,
  ): Promise<unknown> {
    if (!this.conn.connected) {
      throw new PanewardError(
        'host_unreachable',
        `the fleet view has no connection to NATS: the ${op} command for host ${host} was not sent`,
      );
    }
    if (!this.hostView(host).reachable) {
      throw new PanewardError(
        'host_unreachable',
        `${this.unreachableWhy(host)}: the ${op} command was not sent`,
      );
    }
    const nc = await this.conn.connection();
    if (!nc) throw new PanewardError('stopped', 'the fleet view has been stopped');
    const request = {
      ...payload,
      op,
      requestId: randomUUID(),
      expiresAt: Date.now() + timeoutMs,
    } as CommandRequest;
    let raw: unknown;
    try {
      const msg = await nc.request(commandSubject(host), JSON.stringify(request), {
        timeout: timeoutMs,
      });
      raw = msg.json();
    } catch (error) {
      if (error instanceof RequestError && error.isNoResponders()) {
        throw new PanewardError(
          'host_unreachable',
          `no edge answers for host ${host}: the ${op} command was not delivered`,
          { cause: error },
        );
      }
      if (error instanceof TimeoutError || (error as Error).name === 'TimeoutError') {
        throw new PanewardError(
          'host_timeout',
          `host ${host} did not answer the ${op} command within ${Math.round(timeoutMs / 1000)} s: it may have reached the host; the terminal's state and events show whether it ran (it is never sent twice)`,
          { cause: error },
        );
      }
      throw new PanewardError(
        'host_unreachable',
        `the ${op} command for host ${host} could not be sent: ${String(error)}`,
        { cause: error },
      );
    }
    const reply = CommandReply.safeParse(raw);
    if (!reply.success) {
      throw new PanewardError('internal', `host ${host} answered the ${op} command with no reply`);
    }
    if (!reply.data.ok) {
      const e = reply.data.error;
      throw new PanewardError(e.code as PanewardErrorCode, e.message, { details: e.details });
    }
    return reply.data.value;
  }

  // ---- following NATS ------------------------------------------------------------------------

  private terminal(id: string): TerminalSeen {
    const t = this.terminals.get(id);
    if (!t) throw new PanewardError('unknown_terminal', `no terminal with id ${id}`);
    return t;
  }

  private hostView(host: string): HostView {
    const seen = this.hosts.get(host);
    const reachable =
      this.conn.connected &&
      seen !== undefined &&
      !seen.stopped &&
      Date.now() - seen.seenAt < this.limits.heartbeatTtlSeconds * 1000;
    return {
      id: host,
      reachable,
      lastHeartbeatAt: seen && seen.seenAt > 0 ? seen.seenAt : null,
      reason: reachable ? null : 'host_unreachable',
      durableSeq: seen?.beat?.durableSeq ?? null,
      publishedSeq: seen?.beat?.publishedSeq ?? null,
      // What a host that cannot be reached says of itself is not known now.
      observer: reachable ? (seen?.beat?.observer ?? null) : null,
    };
  }

  private unreachableWhy(host: string): string {
    if (!this.conn.connected) return 'the fleet view has no connection to NATS';
    const seen = this.hosts.get(host);
    if (!seen || seen.seenAt === 0) return `host ${host} is unreachable: no heartbeat seen`;
    if (seen.stopped) return `host ${host} is unreachable: its edge stopped`;
    const ago = Math.round((Date.now() - seen.seenAt) / 1000);
    return `host ${host} is unreachable: no heartbeat for ${ago} s`;
  }

  /** Stops the watchers of the current connection. */
  private halt(): void {
    for (const r of this.running) r.stop();
    this.running = [];
  }

  /** Reads both buckets and the stream afresh and follows them, for one connection. */
  private async follow(): Promise<void> {
    this.halt();
    const nc = await this.conn.connection();
    if (!nc || this.stopped) return;
    let h: Omit<FleetHandles, 'nc'>;
    try {
      h = await ensureFleet(nc, this.limits);
    } catch (error) {
      this.log?.warn({ err: String(error) }, 'JetStream not ready; retrying');
      setTimeout(() => {
        if (this.conn.connected && !this.stopped) this.generation = this.follow();
      }, 1000).unref();
      return;
    }
    this.handles = h;
    this.js = h.js;
    let live = true;
    this.running.push({ stop: () => (live = false) });
    await Promise.all([
      this.watchBucket(
        h.hosts,
        () => live,
        (key, entry) => this.onHeartbeat(key, entry),
      ),
      this.watchBucket(
        h.state,
        () => live,
        (key, entry) => this.onState(key, entry),
      ),
    ]);
    void this.consume(h.js, () => live);
  }

  private onHeartbeat(key: string, entry: { value: string | null; created: Date } | null): void {
    if (entry === null || entry.value === null) {
      const seen = this.hosts.get(key);
      if (seen) seen.stopped = true;
      return;
    }
    const beat = Heartbeat.safeParse(safeJson(entry.value));
    if (!beat.success) return;
    // A value read back after a reconnect may be old: it counts from when it was written.
    const seenAt = Math.min(Date.now(), entry.created.getTime());
    this.hosts.set(key, { beat: beat.data, seenAt, stopped: false });
  }

  private onState(key: string, entry: { value: string | null } | null): void {
    const where = parseStateKey(key);
    if (!where) return;
    const id = qualify(where.host, where.terminalId);
    if (entry === null || entry.value === null) {
      this.terminals.delete(id);
      return;
    }
    const parsed = StateEntry.safeParse(safeJson(entry.value));
    if (!parsed.success || parsed.data.host !== where.host) {
      this.log?.warn({ key }, 'a state entry that is not one');
      return;
    }
    if (!this.hosts.has(where.host))
      this.hosts.set(where.host, { beat: null, seenAt: 0, stopped: false });
    this.terminals.set(id, {
      host: where.host,
      terminalId: where.terminalId,
      state: parsed.data.state,
    });
  }

  /**
   * Follows a bucket: its current values, then each change. Keys that are gone are dropped
   * (the watch brings the values that exist; a listing of the keys says which do not).
   */
  private async watchBucket(
    kv: KV,
    live: () => boolean,
    apply: (key: string, entry: { value: string | null; created: Date } | null) => void,
  ): Promise<void> {
    try {
      const watch = await withTimeout(kv.watch({ key: '>' }));
      this.running.push({ stop: () => watch.stop() });
      void (async () => {
        for await (const e of watch) {
          if (!live()) break;
          apply(e.key, e.operation === 'PUT' ? { value: e.string(), created: e.created } : null);
        }
      })().catch((error: unknown) => this.log?.warn({ err: String(error) }, 'watch ended'));
      const present = new Set<string>();
      await withTimeout(
        (async () => {
          for await (const k of await kv.keys('>')) present.add(k);
        })(),
        4 * NATS_TIMEOUT_MS,
      );
      if (kv === this.handles?.state) {
        for (const [id, t] of this.terminals) {
          if (!present.has(stateKey(t.host, t.terminalId))) this.terminals.delete(id);
        }
      }
    } catch (error) {
      this.log?.warn(
        { err: String(error) },
        'cannot read a bucket; retrying on the next connection',
      );
    }
  }

  /** Follows the record stream from where the view is (the last `tailSize` records at first). */
  private async consume(js: JetStreamClient, live: () => boolean): Promise<void> {
    while (live() && !this.stopped) {
      let messages: ConsumerMessages | null = null;
      try {
        let start = this.journal.nextSeq;
        if (start === 1) {
          const info = await withTimeout(
            (await withTimeout(js.jetstreamManager())).streams.info(STREAM),
          );
          start = Math.max(info.state.first_seq, info.state.last_seq - this.tailSize + 1, 1);
        }
        const consumer = await withTimeout(
          js.consumers.get(STREAM, {
            deliver_policy: DeliverPolicy.StartSequence,
            opt_start_seq: start,
          }),
        );
        messages = await consumer.consume({ max_messages: 1000 });
        this.running.push({ stop: () => void messages?.close().catch(() => {}) });
        for await (const m of messages) {
          if (!live()) break;
          this.journal.push(m);
        }
      } catch (error) {
        if (live()) this.log?.warn({ err: String(error) }, 'stream reading interrupted; resuming');
      } finally {
        await messages?.close().catch(() => {});
      }
      if (live()) await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
