import { mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { headers as natsHeaders, type Msg, type Subscription } from '@nats-io/transport-node';
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
import { describeZodError } from '../internal/zod-errors.js';
import type { JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { CommandHandlers } from '../schemas/operations/index.js';
import { portCommands, runCommand } from '../service/commands.js';
import { observerView } from '../service/observer.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import {
  DEFAULT_LIMITS,
  ensureFleet,
  FleetConnection,
  NATS_TIMEOUT_MS,
  type FleetHandles,
  type FleetLimits,
} from './connection.js';
import {
  commandSubject,
  messageId,
  recordFilter,
  recordSubject,
  SEQ_HEADER,
  STREAM,
  stateKey,
} from './names.js';
import { CommandRequest, HostId, type CommandReply, type Heartbeat } from './schemas.js';

export interface EdgeOptions {
  /** The supervisor whose journal and terminals this host shares; it needs a data directory. */
  supervisor: Supervisor;
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  nats: string | string[];
  /** This host's name in the fleet: letters, digits, dash or underscore. */
  hostId: string;
  limits?: Partial<FleetLimits>;
  logger?: Logger;
  /** Records read from the journal and in flight to JetStream at once; default 512. */
  publishWindow?: number;
  /** How often the heartbeat is written; default a quarter of its time to live. */
  heartbeatSeconds?: number;
}

/** What an edge has done so far. */
export interface EdgeStatus {
  connected: boolean;
  /** The last journal seq JetStream acknowledged (with every one before it). */
  publishedSeq: number;
  durableSeq: number;
  /** Publishes JetStream dropped as repeats of a message id it had. */
  duplicates: number;
  commands: number;
}

/** A host's clock may run ahead of the sender's by this much before a command counts as late. */
const CLOCK_SKEW_MS = 2_000;
/** Answers remembered by request id (a repeated command gets the first answer). */
const REMEMBER_ANSWERS = 1_000;

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
  private readonly handlers: CommandHandlers;
  private readonly conn: FleetConnection;
  private readonly limits: FleetLimits;
  private readonly log: Logger | undefined;
  private readonly window: number;
  private readonly heartbeatMs: number;
  private readonly cursorFile: string;
  private readonly startedAt = Date.now();
  private readonly stop$ = new Subject<void>();
  private readonly wake$ = new Subject<void>();
  private handles: Promise<Omit<FleetHandles, 'nc'> | null> | null = null;
  private cursor: number;
  private synced = false;
  /** The stream agreed this journal is this host's: only then does it write state, beat, answer. */
  private verified = false;
  private duplicates = 0;
  private commands = 0;
  private stopped = false;
  private readonly dirty = new Map<string, TerminalState | null>();
  private readonly watched = new Map<string, RxSubscription>();
  private readonly subs: RxSubscription[] = [];
  private responder: Subscription | null = null;
  private readonly answers = new Map<string, Promise<CommandReply>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly loops: Promise<void>[];
  private cursorWrite: Promise<void> = Promise.resolve();
  private cursorSaved = 0;
  /** The state bucket is checked against the attached terminals on each (re)connection. */
  private reconcile = true;

  constructor(options: EdgeOptions) {
    const host = HostId.safeParse(options.hostId);
    if (!host.success) {
      throw new PanewardError(
        'invalid_input',
        `edge: field \`hostId\`: ${describeZodError(host.error).replace(/^field `\(line\)`: /, '')}`,
      );
    }
    const dir = options.supervisor.journal.directory;
    if (dir === null) {
      throw new PanewardError(
        'invalid_input',
        'edge: field `supervisor`: a fleet edge needs a durable journal (a data directory)',
      );
    }
    this.hostId = host.data;
    this.sup = options.supervisor;
    this.handlers = portCommands(this.sup);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.log = options.logger?.child({ host: this.hostId });
    this.window = Math.max(1, options.publishWindow ?? 512);
    this.heartbeatMs = Math.max(
      200,
      (options.heartbeatSeconds ?? this.limits.heartbeatTtlSeconds / 4) * 1000,
    );
    this.cursorFile = join(dirname(dir), 'fleet', `${this.hostId}.cursor.json`);
    this.cursor = this.readCursor();
    this.cursorSaved = this.cursor;
    const servers = Array.isArray(options.nats) ? options.nats.join(',') : options.nats;
    this.conn = new FleetConnection(servers, `paneward-edge-${this.hostId}`, this.log);
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
      publishedSeq: this.cursor,
      durableSeq: this.sup.journal.durableSeq,
      duplicates: this.duplicates,
      commands: this.commands,
    };
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
      this.cursor < this.sup.journal.durableSeq &&
      Date.now() < until
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    this.log?.info(
      { publishedSeq: this.cursor, durableSeq: this.sup.journal.durableSeq },
      'edge stopping',
    );
    this.stopped = true;
    this.stop$.next();
    await Promise.allSettled(this.loops);
    await Promise.allSettled([...this.inFlight]);
    const h = this.conn.connected && this.verified ? await this.handles?.catch(() => null) : null;
    if (h) await withTimeout(h.hosts.delete(this.hostId)).catch(() => {});
    this.responder?.unsubscribe();
    await this.cursorWrite;
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
        const batch = this.sup.journal.readAfter(this.cursor, { limit: this.window });
        if (batch.length === 0) {
          await this.idle();
          continue;
        }
        const acks = await Promise.allSettled(batch.map((r) => this.publish(h, r)));
        let advanced = this.cursor;
        let failure: unknown = null;
        for (const [i, ack] of acks.entries()) {
          if (ack.status === 'rejected') {
            failure = ack.reason;
            break;
          }
          if (ack.value.duplicate) this.duplicates += 1;
          advanced = batch[i]!.seq;
        }
        this.advance(advanced);
        if (failure !== null) {
          // Whatever follows is published again from here; JetStream drops what it already has.
          this.synced = false;
          this.log?.warn({ err: String(failure), at: this.cursor }, 'publishing paused');
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
    let last = 0;
    try {
      const m = await withTimeout(
        h.jsm.streams.getMessage(STREAM, { last_by_subj: recordFilter(this.hostId) }),
      );
      if (m) last = Number(m.header?.get(SEQ_HEADER) || (m.json() as { seq: number }).seq);
    } catch (error) {
      if (!/no message found/i.test(String(error))) throw error;
    }
    if (last > this.sup.journal.lastSeq) {
      throw new PanewardError(
        'invalid_input',
        `the stream holds seq ${last} for host ${this.hostId} but this journal ends at ${this.sup.journal.lastSeq}: another data directory published as this host`,
      );
    }
    if (last > this.cursor) {
      this.log?.info({ from: this.cursor, to: last }, 'the stream had records beyond the cursor');
      this.advance(last);
    }
    this.synced = true;
    if (!this.verified) {
      this.verified = true;
      const nc = await this.conn.connection();
      if (nc && !this.responder && !this.stopped) this.listen(nc);
      this.wake$.next();
    }
  }

  private advance(seq: number): void {
    if (seq <= this.cursor) return;
    this.cursor = seq;
    // One write at a time; the latest value wins.
    this.cursorWrite = this.cursorWrite
      .then(async () => {
        if (this.cursorSaved >= this.cursor) return;
        const value = this.cursor;
        const tmp = `${this.cursorFile}.tmp`;
        await writeFile(tmp, JSON.stringify({ host: this.hostId, seq: value }) + '\n');
        await rename(tmp, this.cursorFile);
        this.cursorSaved = value;
      })
      .catch((error: unknown) => {
        this.log?.warn({ err: String(error) }, 'cannot save the publish cursor');
      });
  }

  private readCursor(): number {
    mkdirSync(dirname(this.cursorFile), { recursive: true });
    try {
      const v = JSON.parse(readFileSync(this.cursorFile, 'utf8')) as {
        host?: unknown;
        seq?: unknown;
      };
      return v.host === this.hostId && Number.isInteger(v.seq) ? (v.seq as number) : 0;
    } catch {
      return 0;
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
          await withTimeout(
            (async () => {
              const keys = await h.state.keys(`${this.hostId}.>`);
              const attached = new Set(this.sup.ids().map((id) => stateKey(this.hostId, id)));
              const gone: string[] = [];
              for await (const key of keys) if (!attached.has(key)) gone.push(key);
              await Promise.all(gone.map((key) => h.state.delete(key)));
            })(),
            4 * NATS_TIMEOUT_MS,
          );
          this.reconcile = false;
        }
        if (this.dirty.size === 0) {
          await this.idle();
          continue;
        }
        const entries = [...this.dirty];
        this.dirty.clear();
        const done = await Promise.allSettled(
          entries.map(([id, s]) =>
            withTimeout<unknown>(
              s === null
                ? h.state.delete(stateKey(this.hostId, id))
                : h.state.put(
                    stateKey(this.hostId, id),
                    JSON.stringify({ host: this.hostId, terminalId: id, at: Date.now(), state: s }),
                  ),
            ),
          ),
        );
        let failed = false;
        done.forEach((d, i) => {
          if (d.status === 'fulfilled') return;
          failed = true;
          const [id, s] = entries[i]!;
          if (!this.dirty.has(id)) this.dirty.set(id, s);
        });
        if (failed) await this.pause(1000);
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
          publishedSeq: this.cursor,
          observer: observerView(this.sup.observer()),
        };
        await withTimeout(h.hosts.put(this.hostId, JSON.stringify(beat))).catch((error: unknown) =>
          this.log?.debug({ err: String(error) }, 'heartbeat not written'),
        );
      }
      await this.pause(this.heartbeatMs);
    }
  }

  // ---- commands ----------------------------------------------------------------------------

  private listen(nc: NonNullable<Awaited<ReturnType<FleetConnection['connection']>>>): void {
    this.responder = nc.subscribe(commandSubject(this.hostId), {
      callback: (err, msg) => {
        if (err || this.stopped) return;
        const p = this.answer(msg);
        this.inFlight.add(p);
        void p.finally(() => this.inFlight.delete(p));
      },
    });
  }

  private async answer(msg: Msg): Promise<void> {
    let reply: CommandReply;
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      raw = undefined;
    }
    const parsed = CommandRequest.safeParse(raw);
    this.log?.debug({ command: raw }, 'command received');
    if (!parsed.success) {
      reply = fail(
        new PanewardError('invalid_input', `command: ${describeZodError(parsed.error)}`, {
          details: parsed.error.issues,
        }),
      );
    } else if (Date.now() > parsed.data.expiresAt + CLOCK_SKEW_MS) {
      // Delivered late (it sat in a buffer through an outage): its sender gave up; not run.
      this.log?.warn(
        { op: parsed.data.op, requestId: parsed.data.requestId },
        'late command dropped',
      );
      return;
    } else {
      const req = parsed.data;
      let answer = this.answers.get(req.requestId);
      if (!answer) {
        this.commands += 1;
        answer = this.run(req).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => fail(error),
        );
        this.answers.set(req.requestId, answer);
        if (this.answers.size > REMEMBER_ANSWERS) {
          this.answers.delete(this.answers.keys().next().value!);
        }
      }
      reply = await answer;
    }
    this.log?.debug(
      { ok: reply.ok, ...(reply.ok ? {} : { error: reply.error }) },
      'command answered',
    );
    try {
      msg.respond(JSON.stringify(reply));
    } catch (error) {
      this.log?.warn({ err: String(error) }, 'command answered into a closed connection');
    }
  }

  /** Runs a command as the HTTP API would: the same handlers, built from the same contracts. */
  private run(req: CommandRequest): Promise<unknown> {
    const { requestId: _id, expiresAt: _at, ...call } = req;
    return runCommand(this.handlers, call);
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

function fail(error: unknown): CommandReply {
  const e = isPanewardError(error)
    ? error
    : new PanewardError('internal', error instanceof Error ? error.message : String(error));
  return { ok: false, error: e.toJSON() };
}

/** Bounds a NATS call that has no timeout of its own. */
export function withTimeout<T>(p: Promise<T>, ms = NATS_TIMEOUT_MS): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      t = setTimeout(
        () => reject(new PanewardError('timeout', `NATS did not answer in ${ms} ms`)),
        ms,
      );
      t.unref();
    }),
  ]).finally(() => clearTimeout(t));
}
