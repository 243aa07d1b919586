import { dirname, join } from 'node:path';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import {
  filter,
  firstValueFrom,
  merge,
  Subject,
  take,
  timer,
  type Subscription as RxSubscription,
} from 'rxjs';
import { isPanewardError, PanewardError } from '../errors.js';
import type { JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { portCommands } from '../service/commands.js';
import { observerView } from '../service/observer.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import {
  DEFAULT_LIMITS,
  ensureFleet,
  FleetConnection,
  NATS_TIMEOUT_MS,
  type FleetHandles,
  type FleetLimits,
  withTimeout,
} from './connection.js';
import { checkEdgeOptions, type EdgeOptions, type EdgeStatus } from './edge-options.js';
import { messageId, recordSubject, SEQ_HEADER } from './names.js';
import { lastPublishedSeq, PublishCursor } from './cursor.js';
import { CommandResponder } from './responder.js';
import { dropDetached, writeStates } from './state-bucket.js';
import type { Heartbeat } from './schemas.js';

export { loopbackNats, type EdgeOptions, type EdgeStatus } from './edge-options.js';

/**
 * The edge of a fleet: publishes every acknowledged journal record to the JetStream stream
 * (message id `<host>:<seq>`, so a republish is dropped), keeps each terminal's latest public
 * state in the state bucket, writes a heartbeat that expires, and answers commands over
 * request/reply with the supervisor's own validation and refusals. The journal stays the source
 * of truth: while NATS is away the supervisor goes on, and the edge catches up from the last seq
 * JetStream acknowledged, which it keeps in the data directory.
 */
export class FleetEdge {
  readonly hostId: string;
  private readonly sup: Supervisor;
  private readonly responder: CommandResponder;
  private readonly conn: FleetConnection;
  private readonly limits: FleetLimits;
  private readonly log: Logger | undefined;
  private readonly window: number;
  private readonly heartbeatMs: number;
  private readonly startedAt = Date.now();
  private readonly stop$ = new Subject<void>();
  private readonly wake$ = new Subject<void>();
  private handles: Promise<Omit<FleetHandles, 'nc'> | null> | null = null;
  private readonly cursor: PublishCursor;
  private synced = false;
  /** The stream agreed this journal is this host's: only then does it write state, beat, answer. */
  private verified = false;
  private duplicates = 0;
  private stopped = false;
  private readonly dirty = new Map<string, TerminalState | null>();
  private readonly watched = new Map<string, RxSubscription>();
  private readonly subs: RxSubscription[] = [];
  private readonly loops: Promise<void>[];
  /** The state bucket is checked against the attached terminals on each (re)connection. */
  private reconcile = true;

  constructor(options: EdgeOptions) {
    const { hostId, dir, servers, token } = checkEdgeOptions(options);
    this.hostId = hostId;
    this.sup = options.supervisor;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.log = options.logger?.child({ host: this.hostId });
    if (token === null) {
      this.log?.warn('no fleet token: commands over NATS are run unsigned (loopback NATS only)');
    }
    this.responder = new CommandResponder(
      this.hostId,
      portCommands(this.sup, { from: 'fleet' }),
      this.log,
      token,
    );
    this.window = Math.max(1, options.publishWindow ?? 512);
    this.heartbeatMs = Math.max(
      200,
      (options.heartbeatSeconds ?? this.limits.heartbeatTtlSeconds / 4) * 1000,
    );
    const cursorFile = join(dirname(dir), 'fleet', `${this.hostId}.cursor.json`);
    this.cursor = new PublishCursor(cursorFile, this.hostId, this.log);
    this.conn = new FleetConnection(
      servers,
      `paneward-edge-${this.hostId}`,
      this.log,
      options.natsAuth,
    );
    this.subs.push(
      this.conn.connected$.subscribe((up) => {
        if (up) this.markAllDirty();
        else this.synced = false;
        this.wake$.next();
      }),
      this.sup.terminals$.subscribe((ids) => this.track(ids)),
    );
    this.loops = [this.publishLoop(), this.stateLoop(), this.heartbeatLoop()];
  }

  status(): EdgeStatus {
    return {
      connected: this.conn.connected,
      publishedSeq: this.cursor.seq,
      durableSeq: this.sup.journal.durableSeq,
      duplicates: this.duplicates,
      commands: this.responder.commands,
      refusedCommands: this.responder.refused,
      natsRefusal: this.conn.refusal,
    };
  }

  /** Null once connected to NATS (or after `ms` with NATS down), else why NATS refused it. */
  firstAttempt(ms?: number): Promise<string | null> {
    return this.conn.firstAttempt(ms);
  }

  /**
   * Stops publishing and answering; the heartbeat is removed so the fleet sees the host go at
   * once. The supervisor is the caller's: `before` (e.g. its `stop`) runs once the terminals are
   * no longer followed, then for up to `drainMs` what the journal holds is still published.
   * Bounded: each NATS call has its own timeout.
   */
  async stop(options: { drainMs?: number; before?: () => Promise<void> } = {}): Promise<void> {
    if (this.stopped) return;
    // A supervisor that stops is not a detach: its terminals stay in the state bucket.
    for (const s of [...this.subs, ...this.watched.values()]) s.unsubscribe();
    await options.before?.();
    // What the journal holds is published before leaving, while NATS is there to take it.
    const until = Date.now() + (options.drainMs ?? 0);
    while (
      this.conn.connected &&
      this.verified &&
      this.cursor.seq < this.sup.journal.durableSeq &&
      Date.now() < until
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    this.log?.info(
      { publishedSeq: this.cursor.seq, durableSeq: this.sup.journal.durableSeq },
      'edge stopping',
    );
    this.stopped = true;
    this.stop$.next();
    await Promise.allSettled(this.loops);
    await this.responder.drain();
    const h = this.conn.connected && this.verified ? await this.handles?.catch(() => null) : null;
    if (h) await withTimeout(h.hosts.delete(this.hostId)).catch(() => {});
    this.responder.close();
    await this.cursor.flushed();
    await this.conn.close();
  }

  // ---- the record stream -------------------------------------------------------------------

  private async publishLoop(): Promise<void> {
    while (!this.stopped) {
      const h = await this.ready();
      if (!h) {
        await this.pause(1000);
        continue;
      }
      try {
        if (!this.synced) await this.sync(h);
        const batch = this.sup.journal.readAfter(this.cursor.seq, { limit: this.window });
        if (batch.length === 0) {
          await this.idle();
          continue;
        }
        const acks = await Promise.allSettled(batch.map((r) => this.publish(h, r)));
        let advanced = this.cursor.seq;
        let failure: unknown = null;
        for (const [i, ack] of acks.entries()) {
          if (ack.status === 'rejected') {
            failure = ack.reason;
            break;
          }
          if (ack.value.duplicate) this.duplicates += 1;
          advanced = batch[i]!.seq;
        }
        this.cursor.advance(advanced);
        if (failure !== null) {
          // Whatever follows is published again from here; JetStream drops what it already has.
          this.synced = false;
          this.log?.warn({ err: String(failure), at: this.cursor.seq }, 'publishing paused');
          await this.pause(1000);
        }
      } catch (error) {
        this.synced = false;
        this.log?.[isPanewardError(error) ? 'error' : 'warn'](
          { err: String(error) },
          'publishing paused',
        );
        await this.pause(isPanewardError(error) ? 10_000 : 1000);
      }
    }
  }

  private publish(h: Omit<FleetHandles, 'nc'>, r: JournalRecord) {
    const hdrs = natsHeaders();
    hdrs.set(SEQ_HEADER, String(r.seq));
    return h.js.publish(recordSubject(this.hostId, r.terminalId, r.kind), JSON.stringify(r), {
      msgID: messageId(this.hostId, r.seq),
      headers: hdrs,
      timeout: NATS_TIMEOUT_MS,
    });
  }

  /**
   * Where to go on from: the seq kept on disk, or the stream's own last record of this host if
   * that is further (acknowledged just before a crash, or before an outage longer than the
   * duplicate window). A stream ahead of this journal means another data directory published
   * as this host: nothing is published then.
   */
  private async sync(h: Omit<FleetHandles, 'nc'>): Promise<void> {
    const last = await lastPublishedSeq(h.jsm, this.hostId);
    if (last > this.sup.journal.lastSeq) {
      throw new PanewardError(
        'invalid_input',
        `the stream holds seq ${last} for host ${this.hostId} but this journal ends at ${this.sup.journal.lastSeq}: another data directory published as this host`,
      );
    }
    if (last > this.cursor.seq) {
      this.log?.info(
        { from: this.cursor.seq, to: last },
        'the stream had records beyond the cursor',
      );
      this.cursor.advance(last);
    }
    this.synced = true;
    if (!this.verified) {
      this.verified = true;
      const nc = await this.conn.connection();
      if (nc && !this.responder.listening && !this.stopped) {
        this.responder.listen(nc, () => this.stopped);
      }
      this.wake$.next();
    }
  }

  // ---- latest state ------------------------------------------------------------------------

  private track(ids: string[]): void {
    const now = new Set(ids);
    for (const [id, sub] of this.watched) {
      if (now.has(id)) continue;
      sub.unsubscribe();
      this.watched.delete(id);
      this.dirty.set(id, null);
    }
    for (const id of ids) {
      if (this.watched.has(id)) continue;
      try {
        this.watched.set(
          id,
          this.sup.state$(id).subscribe({
            next: (s) => {
              this.dirty.set(id, s);
              this.wake$.next();
            },
            error: () => {},
          }),
        );
      } catch {
        // Detached meanwhile.
      }
    }
    this.wake$.next();
  }

  private markAllDirty(): void {
    for (const id of this.watched.keys()) {
      try {
        this.dirty.set(id, this.sup.get(id));
      } catch {
        this.dirty.set(id, null);
      }
    }
    this.reconcile = true;
  }

  private async stateLoop(): Promise<void> {
    while (!this.stopped) {
      const h = await this.ready();
      if (h && !this.verified) {
        await this.idle();
        continue;
      }
      if (!h) {
        await this.pause(1000);
        continue;
      }
      try {
        if (this.reconcile) {
          // Terminals detached while NATS was away, or before a crash, leave the bucket.
          await dropDetached(h.state, this.hostId, this.sup.ids());
          this.reconcile = false;
        }
        if (this.dirty.size === 0) {
          await this.idle();
          continue;
        }
        const entries = [...this.dirty];
        this.dirty.clear();
        const failed = await writeStates(h.state, this.hostId, entries);
        for (const [id, s] of failed) if (!this.dirty.has(id)) this.dirty.set(id, s);
        if (failed.length > 0) await this.pause(1000);
      } catch (error) {
        this.log?.warn({ err: String(error) }, 'state bucket not written');
        await this.pause(1000);
      }
    }
  }

  // ---- liveness ----------------------------------------------------------------------------

  private async heartbeatLoop(): Promise<void> {
    while (!this.stopped) {
      const h = this.conn.connected ? await this.ready() : null;
      if (h && this.verified) {
        const beat: Heartbeat = {
          host: this.hostId,
          pid: process.pid,
          startedAt: this.startedAt,
          at: Date.now(),
          terminals: this.sup.ids().length,
          durableSeq: this.sup.journal.durableSeq,
          publishedSeq: this.cursor.seq,
          observer: observerView(this.sup.observer()),
        };
        await withTimeout(h.hosts.put(this.hostId, JSON.stringify(beat))).catch((error: unknown) =>
          this.log?.debug({ err: String(error) }, 'heartbeat not written'),
        );
      }
      await this.pause(this.heartbeatMs);
    }
  }

  // ---- plumbing ----------------------------------------------------------------------------

  /** The stream and buckets, once connected (null while NATS is away or when stopping). */
  private async ready(): Promise<Omit<FleetHandles, 'nc'> | null> {
    await Promise.race([this.conn.whenConnected(), firstValueFrom(this.stop$).catch(() => {})]);
    if (this.stopped || !this.conn.connected) return null;
    this.handles ??= (async () => {
      const nc = await this.conn.connection();
      if (!nc) return null;
      return ensureFleet(nc, this.limits);
    })();
    try {
      return await this.handles;
    } catch (error) {
      this.handles = null;
      this.log?.warn({ err: String(error) }, 'JetStream not ready');
      return null;
    }
  }

  /** Until a new record, a state change, a change of connection, stop, or 1 s. */
  private async idle(): Promise<void> {
    await firstValueFrom(
      merge(this.sup.journal.records$, this.wake$, this.stop$, timer(1000)).pipe(take(1)),
      { defaultValue: null },
    );
  }

  private async pause(ms: number): Promise<void> {
    await firstValueFrom(merge(timer(ms), this.stop$.pipe(filter(() => true))).pipe(take(1)), {
      defaultValue: null,
    });
  }
}
