import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { NEVER, Subject, type Observable, type Subscription } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { FleetHost } from '../schemas/operations/index.js';
import type { HostChange } from '../service/port.js';
import type { Telemetry } from '../supervisor/supervisor.js';
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
import { consumeStream, goneSince, safeJson, watchBucket } from './follow.js';
import { parseStateKey, qualify, stateKey } from './names.js';
import { Heartbeat, StateEntry } from './schemas.js';

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
 * What a fleet view knows and how it keeps knowing it: one connection to NATS, the heartbeats
 * of the hosts and the state of their terminals read from the buckets and followed, the stream
 * of their records, and which hosts answer, judged once a second. The supervisor's operations
 * on top of it are {@link FleetView}'s.
 */
export abstract class FleetFollower {
  readonly journal: FleetFeed;
  readonly telemetry$: Observable<Telemetry> = NEVER;
  protected readonly conn: FleetConnection;
  private readonly limits: FleetLimits;
  private readonly log: Logger | undefined;
  protected readonly commandMs: number;
  protected readonly terminals = new Map<string, TerminalSeen>();
  protected readonly hosts = new Map<string, HostSeen>();
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
  protected readonly token: string | null;
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

  // ---- following NATS ------------------------------------------------------------------------

  protected terminal(id: string): TerminalSeen {
    const t = this.terminals.get(id);
    if (!t) throw new PanewardError('unknown_terminal', `no terminal with id ${id}`);
    return t;
  }

  protected hostView(host: string): HostView {
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

  protected unreachableWhy(host: string): string {
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
