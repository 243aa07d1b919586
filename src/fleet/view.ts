import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { NEVER, Subject, type Observable, type Subscription } from 'rxjs';
import { PanewardError } from '../errors.js';
import { MAX_TIMER_DELAY_MS } from '../internal/long-timer.js';
import type { AnsweredBy, JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type {
  CommandInput,
  CommandName,
  CommandOutput,
  FleetHost,
  ObservationAnswer,
  ObservationBody,
} from '../schemas/operations/index.js';
import type { AttachCommand, HostChange, SupervisorPort } from '../service/port.js';
import type { Telemetry, TurnResult } from '../supervisor/supervisor.js';
import type { TurnPayload } from '../schemas/turn-payload.js';
import {
  DEFAULT_LIMITS,
  ensureFleet,
  FleetConnection,
  type FleetHandles,
  type FleetLimits,
  withTimeout,
} from './connection.js';
import { MIN_TOKEN_LENGTH, type NatsAuth } from './auth.js';
import { FleetFeed } from './feed.js';
import { sendCommand } from './commands.js';
import { consumeStream, goneSince, safeJson, watchBucket } from './follow.js';
import { parseStateKey, qualify, stateKey } from './names.js';
import { Heartbeat, StateEntry } from './schemas.js';

/** How long a host may wait for an answered dialog to close, beside the command's own time. */
const ANSWER_CLOSE_MS = 6_000;
/** How often the view judges whether each host still answers (heartbeats expire silently). */
const LIVENESS_CHECK_MS = 1_000;

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
  /** The fleet token every command is signed with (the edges check it); null: unsigned. */
  token?: string | null;
  /** How to log in to NATS and check its certificate. */
  natsAuth?: NatsAuth;
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
  /** The state keys the current connection's watch has delivered. */
  private heard = new Set<string>();
  private readonly stop$ = new Subject<void>();
  private handles: Omit<FleetHandles, 'nc'> | null = null;
  private js: JetStreamClient | null = null;
  private stopped = false;
  private readonly subs: Subscription[] = [];
  private generation: Promise<void> | null = null;
  private running: Array<{ stop(): void }> = [];
  private readonly tailSize: number;
  private readonly token: string | null;
  private readonly hostChanges = new Subject<HostChange>();
  /**
   * Hosts that stopped answering, or answer again, judged only while this view is connected
   * and has read the heartbeats afresh: its own loss of NATS is not a host's.
   */
  readonly hostChanges$: Observable<HostChange> = this.hostChanges.asObservable();
  /** Whether each host answered when last judged; absent: never seen answering. */
  private readonly answering = new Map<string, boolean>();
  /** Since when the current connection's heartbeats have been read; null: hosts are not judged. */
  private judgingSince: number | null = null;
  private readonly livenessTimer: NodeJS.Timeout;

  constructor(options: FleetViewOptions) {
    this.token = options.token ?? null;
    if (this.token !== null && this.token.length < MIN_TOKEN_LENGTH) {
      throw new PanewardError(
        'invalid_input',
        `fleet: field \`token\`: the fleet token must be at least ${MIN_TOKEN_LENGTH} characters`,
      );
    }
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
    this.conn = new FleetConnection(servers, 'paneward-fleet', this.log, options.natsAuth);
    this.livenessTimer = setInterval(() => this.judgeHosts(), LIVENESS_CHECK_MS);
    this.livenessTimer.unref();
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
    return {
      fleet: {
        nats: { connected: this.conn.connected, refusal: this.conn.refusal },
        hosts: this.hostViews(),
      },
    };
  }

  /** Null once connected to NATS (or after `ms` with NATS down), else why NATS refused it. */
  firstAttempt(ms?: number): Promise<string | null> {
    return this.conn.firstAttempt(ms);
  }

  history(id: string, limit?: number): JournalRecord[] {
    this.terminal(id);
    return this.journal.history(id, limit);
  }

  /** Every host the view knows of, and whether it is reachable now. */
  hostViews(): HostView[] {
    const names = new Set([
      ...this.hosts.keys(),
      ...[...this.terminals.values()].map((t) => t.host),
    ]);
    return [...names].sort().map((h) => this.hostView(h));
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
    const value = await this.command(host, 'attach', { body }, this.commandMs * 2);
    const id = qualify(host, value.terminalId);
    // The state bucket will say the same shortly; the answer is not made to wait for it.
    if (!this.terminals.has(id)) {
      this.terminals.set(id, { host, terminalId: value.terminalId, state: value.state });
    }
    return id;
  }

  async submit(id: string, text: string, opts: { force?: boolean } = {}): Promise<string> {
    const t = this.terminal(id);
    const value = await this.command(t.host, 'input', {
      id: t.terminalId,
      body: { text, force: opts.force ?? false },
    });
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
    ).then((r): TurnResult => ({
      ...r,
      payload: r.payload ? { ...r.payload, terminalId: id } : null,
    }));
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

  /** A turn's payload, asked of its host (replies are never stored in NATS). */
  async turnPayload(id: string, turnId: string): Promise<TurnPayload> {
    const t = this.terminal(id);
    const payload = await this.command(t.host, 'turn', { id: t.terminalId, turnId });
    return { ...payload, terminalId: id };
  }

  /** The pane's latest capture, asked of its host (screens are never stored in NATS). */
  async screen(id: string): Promise<{ text: string; t: number } | null> {
    const t = this.terminal(id);
    return this.command(t.host, 'screen', { id: t.terminalId });
  }

  /** An ending a completion observer tells (docs/witness.md), forwarded to the terminal's host. */
  async observerEnding(id: string, body: ObservationBody): Promise<ObservationAnswer> {
    const t = this.terminal(id);
    const answer = await this.command(t.host, 'observe', { id: t.terminalId, body });
    return { ...answer, terminalId: id };
  }

  /**
   * Answers the question on a terminal's screen through its host's edge, which runs it through
   * that host's supervisor (the same gate and checks) and journals it there as the fleet's
   * (`by.via: fleet`, with the client this server was asked by). Given a little longer than
   * other commands: the host waits up to 5 s for the dialog to close. Never sent twice: a
   * timeout says it may have been typed.
   */
  async answer(
    id: string,
    request: { questionId: string; choice: string; by: AnsweredBy },
  ): Promise<CommandOutput<'answer'>> {
    const t = this.terminal(id);
    const { via, tokenId } = request.by;
    const client = via === 'cli' || via === 'dashboard' ? via : 'http';
    return this.command(
      t.host,
      'answer',
      {
        id: t.terminalId,
        body: { questionId: request.questionId, choice: request.choice, via: client },
        tokenId,
      },
      this.commandMs + ANSWER_CLOSE_MS,
    );
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
    clearInterval(this.livenessTimer);
    this.hostChanges.complete();
    this.stop$.next();
    for (const s of this.subs) s.unsubscribe();
    this.halt();
    await this.conn.close();
    this.journal.close();
  }

  /**
   * Sends one command to the host that owns the terminal and returns its answer, checked
   * against the command's contract. Never sent twice: see {@link sendCommand}.
   */
  private async command<K extends CommandName>(
    host: string,
    op: K,
    input: CommandInput<K>,
    timeoutMs = this.commandMs,
  ): Promise<CommandOutput<K>> {
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
    return sendCommand(nc, host, op, input, timeoutMs, this.token);
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
    if (!this.conn.connected) {
      return `the fleet view has no connection to NATS${this.conn.refusal ? `: ${this.conn.refusal}` : ''}`;
    }
    return `host ${host} is unreachable: ${this.silence(host)}`;
  }

  /** Why a host does not answer, as its heartbeats say. */
  private silence(host: string): string {
    const seen = this.hosts.get(host);
    if (!seen || seen.seenAt === 0) return 'no heartbeat seen';
    if (seen.stopped) return 'its edge stopped';
    return `no heartbeat for ${Math.round((Date.now() - seen.seenAt) / 1000)} s`;
  }

  /**
   * Tells of each host that stopped answering since it was last judged, or answers again: only
   * on a change, only for a host this view has seen answering, and only while this view is
   * connected and has read the heartbeats of its current connection.
   */
  private judgeHosts(): void {
    if (this.stopped || this.judgingSince === null || !this.conn.connected) return;
    // Back from an outage of its own, the view gives each host one heartbeat expiry to be heard
    // again (its edge may reconnect later than the view did), unless its edge said it stopped.
    const settling = Date.now() - this.judgingSince < this.limits.heartbeatTtlSeconds * 1000;
    for (const host of [...this.hosts.keys()].sort()) {
      const now = this.hostView(host).reachable;
      const before = this.answering.get(host);
      if (before === undefined && !now) continue;
      if (before === true && !now && settling && !this.hosts.get(host)?.stopped) continue;
      this.answering.set(host, now);
      if (before === undefined || before === now) continue;
      const terminalIds = [...this.terminals.entries()]
        .filter(([, t]) => t.host === host)
        .map(([id]) => id)
        .sort();
      const reason = now
        ? `host ${host} answers again`
        : `host ${host} stopped answering: ${this.silence(host)}`;
      const fields = { host, reachable: now, terminals: terminalIds.length };
      if (now) this.log?.info(fields, reason);
      else this.log?.warn(fields, reason);
      this.hostChanges.next({ host, reachable: now, reason, terminalIds });
    }
  }

  /** Stops the watchers of the current connection. */
  private halt(): void {
    this.judgingSince = null;
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
    const follower = { live: () => live, running: this.running, log: this.log };
    const heard = new Set<string>();
    this.heard = heard;
    const [, present] = await Promise.all([
      watchBucket(h.hosts, follower, (key, entry) => this.onHeartbeat(key, entry)),
      watchBucket(h.state, follower, (key, entry) => this.onState(key, entry)),
    ]);
    // The heartbeats of this connection are read: whether a host answers can be judged again.
    if (live && !this.stopped) this.judgingSince = Date.now();
    // Entries gone while the view was away are dropped (the watch brings only those that exist).
    const known = [...this.terminals].map(([id, t]): [string, string] => [
      id,
      stateKey(t.host, t.terminalId),
    ]);
    for (const id of goneSince(known, present, heard)) this.terminals.delete(id);
    const stillLive = () => live && !this.stopped;
    void consumeStream(h.js, this.journal, this.tailSize, { ...follower, live: stillLive });
  }

  private onHeartbeat(key: string, entry: { value: string | null; created: Date } | null): void {
    if (entry === null || entry.value === null) {
      const seen = this.hosts.get(key);
      if (seen) seen.stopped = true;
      // An edge that stopped removed its heartbeat: told now, not when it would have expired.
      this.judgeHosts();
      return;
    }
    const beat = Heartbeat.safeParse(safeJson(entry.value));
    if (!beat.success) return;
    // A value read back after a reconnect may be old: it counts from when it was written.
    const seenAt = Math.min(Date.now(), entry.created.getTime());
    this.hosts.set(key, { beat: beat.data, seenAt, stopped: false });
    this.judgeHosts();
  }

  private onState(key: string, entry: { value: string | null } | null): void {
    const where = parseStateKey(key);
    if (!where) return;
    const id = qualify(where.host, where.terminalId);
    this.heard.add(id);
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
}
