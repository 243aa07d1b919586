import { PanewardError } from '../errors.js';
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { BehaviorSubject, filter, firstValueFrom, type Observable } from 'rxjs';
import type { Logger } from 'pino';
import { natsConnectOptions, natsRefusal, type NatsAuth } from './auth.js';
import { HOSTS_BUCKET, STATE_BUCKET, STREAM, STREAM_SUBJECTS } from './names.js';

/** Limits of what the fleet keeps in NATS; the first edge or view to start creates them. */
export interface FleetLimits {
  /** Records older than this leave the stream; default 7 days. */
  streamMaxAgeSeconds: number;
  /** The stream never holds more than this; the oldest records go first; default 8 GiB. */
  streamMaxBytes: number;
  /** How long JetStream remembers a message id to drop a republish; default 2 minutes. */
  duplicateWindowSeconds: number;
  /** A heartbeat entry expires after this long; a host silent that long is unreachable; default 10 s. */
  heartbeatTtlSeconds: number;
}

export const DEFAULT_LIMITS: FleetLimits = {
  streamMaxAgeSeconds: 7 * 86_400,
  streamMaxBytes: 8 * 1024 ** 3,
  duplicateWindowSeconds: 120,
  heartbeatTtlSeconds: 10,
};

/** Every JetStream call is bounded by this (ms). */
export const NATS_TIMEOUT_MS = 5_000;

export interface FleetHandles {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  state: KV;
  hosts: KV;
}

const sec = (s: number) => Math.round(s * 1e9);

/** Creates the stream and the two buckets unless they exist (then they are used as they are). */
export async function ensureFleet(
  nc: NatsConnection,
  limits: FleetLimits,
): Promise<Omit<FleetHandles, 'nc'>> {
  const jsm = await jetstreamManager(nc, { timeout: NATS_TIMEOUT_MS });
  try {
    await jsm.streams.info(STREAM);
  } catch {
    try {
      await jsm.streams.add({
        name: STREAM,
        subjects: [STREAM_SUBJECTS],
        max_age: sec(limits.streamMaxAgeSeconds),
        max_bytes: limits.streamMaxBytes,
        duplicate_window: sec(limits.duplicateWindowSeconds),
        discard: 'old' as never,
        storage: 'file' as never,
      });
    } catch (error) {
      // Another edge created it meanwhile.
      await jsm.streams.info(STREAM).catch(() => {
        throw error;
      });
    }
  }
  const js = jetstream(nc, { timeout: NATS_TIMEOUT_MS });
  const kvm = new Kvm(js);
  const state = await kvm.create(STATE_BUCKET, { history: 1 });
  const hosts = await kvm.create(HOSTS_BUCKET, {
    history: 1,
    ttl: limits.heartbeatTtlSeconds * 1000,
  });
  return { js, jsm, state, hosts };
}

/**
 * One NATS connection kept up for as long as it is wanted: the first connect is retried every
 * second (a server down at start is not an error), then the client reconnects by itself.
 * `connected$` says whether it is connected now; nothing here throws for an outage. A server
 * that refuses the credentials or the TLS handshake is retried too (its configuration may be
 * mended), but said as such: `refusal` holds why, and `firstAttempt()` resolves with it.
 */
export class FleetConnection {
  readonly connected$ = new BehaviorSubject(false);
  /** Why NATS refused this client, as long as it does; null when connected or merely down. */
  refusal: string | null = null;
  private nc: NatsConnection | null = null;
  private stopped = false;
  private readonly ready: Promise<NatsConnection | null>;
  private readonly options: Partial<NodeConnectionOptions>;
  private settleFirst: (refusal: string | null) => void = () => {};
  private readonly first: Promise<string | null>;

  constructor(
    readonly url: string,
    readonly name: string,
    private readonly log?: Logger,
    auth?: NatsAuth,
  ) {
    // Files read (and mistakes refused, naming the field) before anything is dialled.
    this.options = natsConnectOptions(auth);
    this.first = new Promise((r) => (this.settleFirst = r));
    this.ready = this.dial();
  }

  /**
   * The outcome of the first dial: null once connected (or when the server is merely down and
   * `ms` passed), else why NATS refused this client.
   */
  async firstAttempt(ms = NATS_TIMEOUT_MS): Promise<string | null> {
    return Promise.race([
      this.first,
      new Promise<null>((r) => setTimeout(() => r(null), ms).unref()),
    ]);
  }

  /** The connection once it was first made (null when stopped before). */
  connection(): Promise<NatsConnection | null> {
    return this.ready;
  }

  get connected(): boolean {
    return this.connected$.value;
  }

  /** Resolves when connected (or stopped). */
  async whenConnected(): Promise<void> {
    await firstValueFrom(
      this.connected$.pipe(filter((c) => c || this.stopped)) as Observable<boolean>,
    );
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.connected$.next(false);
    const nc = this.nc;
    this.nc = null;
    if (nc) {
      await Promise.race([
        nc.close().catch(() => {}),
        new Promise((r) => setTimeout(r, NATS_TIMEOUT_MS).unref()),
      ]);
    }
    this.connected$.complete();
  }

  private async dial(): Promise<NatsConnection | null> {
    let warned = false;
    while (!this.stopped) {
      try {
        const nc = await connect({
          ...this.options,
          servers: this.url.split(','),
          name: this.name,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1000,
          // A silent (partitioned) server is noticed within about 15 s.
          pingInterval: 5000,
          maxPingOut: 2,
          timeout: NATS_TIMEOUT_MS,
        });
        if (this.stopped) {
          await nc.close().catch(() => {});
          return null;
        }
        this.nc = nc;
        this.watch(nc);
        this.refusal = null;
        this.settleFirst(null);
        this.connected$.next(true);
        this.log?.info({ nats: this.url }, 'connected to NATS');
        return nc;
      } catch (error) {
        const refusal = natsRefusal(error);
        if (refusal !== null) {
          if (this.refusal !== refusal) this.log?.error({ nats: this.url }, refusal);
          this.refusal = refusal;
          this.settleFirst(refusal);
        } else if (!warned) {
          this.log?.warn({ nats: this.url, err: String(error) }, 'NATS unreachable; retrying');
        }
        warned = true;
        await new Promise((r) => setTimeout(r, refusal === null ? 1000 : 5000).unref());
      }
    }
    return null;
  }

  private watch(nc: NatsConnection): void {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnecting' || s.type === 'staleConnection') {
          if (this.connected$.value) this.log?.warn({ nats: this.url }, 'NATS connection lost');
          if (!this.connected$.closed) this.connected$.next(false);
        } else if (s.type === 'error') {
          const refusal = natsRefusal(s.error);
          if (refusal !== null && this.refusal !== refusal) {
            this.refusal = refusal;
            this.log?.error({ nats: this.url }, refusal);
          }
        } else if (s.type === 'reconnect') {
          this.refusal = null;
          this.log?.info({ nats: this.url }, 'reconnected to NATS');
          if (!this.connected$.closed) this.connected$.next(true);
        }
      }
    })().catch(() => {});
    void nc.closed().then(() => {
      if (!this.connected$.closed) this.connected$.next(false);
    });
  }
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
