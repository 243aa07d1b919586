// Real parts for the fleet tests and the fleet benchmark: a nats-server with JetStream on
// loopback, TCP proxies to cut one edge off, paneward processes (edges and a fleet server).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAM } from '../../../src/fleet/names.js';

export const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
export const PROFILES = fileURLToPath(new URL('./profiles.ts', import.meta.url));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await sleep(100);
  }
}

/** `nats-server -js` on loopback with its own store directory; stop and start it again. */
export class NatsServer {
  private child: ChildProcess | null = null;
  private log = '';
  constructor(
    readonly port: number,
    readonly storeDir: string,
    /** More arguments, e.g. `['-c', file]` for a configuration with accounts or TLS. */
    private readonly extraArgs: string[] = [],
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The server's pid while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(): Promise<void> {
    mkdirSync(this.storeDir, { recursive: true });
    this.child = spawn(
      'nats-server',
      ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir, ...this.extraArgs],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child.stderr!.on(
      'data',
      (c: Buffer) => (this.log = (this.log + c.toString()).slice(-4000)),
    );
    await waitForPort(this.port, 15_000).catch((error: unknown) => {
      throw new Error(`nats-server did not start: ${String(error)}\n${this.log}`);
    });
  }

  /** Stops it (SIGTERM, then SIGKILL after 5 s) and waits for it to be gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(t);
  }
}

/** A TCP proxy in front of NATS for one edge: `cut()` drops its connection and refuses it. */
export class Proxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private open = true;
  port = 0;

  constructor(private readonly target: () => number) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.open) {
        client.destroy();
        return;
      }
      const upstream = tcpConnect(this.target(), '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as { port: number }).port;
  }

  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  heal(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((r) => this.server?.close(r));
  }
}

/** A `paneward serve` process. */
export class Serve {
  child: ChildProcess | null = null;
  log = '';
  /** How the last stopped process ended. */
  lastExit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  constructor(
    readonly port: number,
    readonly args: string[],
    private readonly env: NodeJS.ProcessEnv = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      process.execPath,
      [BIN, 'serve', '--port', String(this.port), '--log-level', 'warn', ...this.args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...this.env } },
    );
    const keep = (c: Buffer) => (this.log = (this.log + c.toString()).slice(-8000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) return;
      } catch {
        /* not up yet */
      }
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`serve ${this.args.join(' ')} did not start:\n${this.log}`);
      }
      await sleep(200);
    }
  }

  /** SIGKILL: nothing is flushed, nothing said goodbye. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // 'close': exited and its output read to the end.
    const gone = new Promise((r) =>
      child.once('close', (code, signal) => {
        this.lastExit = { code, signal };
        r(null);
      }),
    );
    child.kill(sig);
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(t);
  }
}

/** JSON over HTTP with a timeout: status and body. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 15_000,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    // As the CLI does: an action without a body says it is not a web page's.
    headers: body === undefined ? { 'x-paneward': '1' } : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

export interface StreamMessage {
  seq: number;
  subject: string;
  record: { seq: number; kind: string; terminalId: string | null } & Record<string, unknown>;
}

/** How many messages and bytes the fleet stream holds. */
export async function streamSize(url: string): Promise<{ messages: number; bytes: number }> {
  const nc = await connect({ servers: url, timeout: 5000 });
  try {
    const jsm = await jetstream(nc, { timeout: 10_000 }).jetstreamManager();
    const info = await jsm.streams.info(STREAM);
    return { messages: info.state.messages, bytes: info.state.bytes };
  } finally {
    await nc.close();
  }
}

/** Every message of the fleet stream, read with a connection of its own. */
export async function readStream(url: string): Promise<StreamMessage[]> {
  const nc = await connect({ servers: url, timeout: 5000 });
  try {
    const js = jetstream(nc, { timeout: 10_000 });
    const jsm = await js.jetstreamManager();
    const info = await jsm.streams.info(STREAM);
    const out: StreamMessage[] = [];
    if (info.state.messages === 0) return out;
    const consumer = await js.consumers.get(STREAM, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: info.state.first_seq,
    });
    while (out.length < info.state.messages) {
      const batch = await consumer.fetch({ max_messages: 2000, expires: 5000 });
      let got = 0;
      for await (const m of batch) {
        got += 1;
        out.push({ seq: m.seq, subject: m.subject, record: m.json() });
        if (m.seq >= info.state.last_seq) break;
      }
      if (got === 0 || out.at(-1)!.seq >= info.state.last_seq) break;
    }
    await consumer.delete().catch(() => {});
    return out;
  } finally {
    await nc.close();
  }
}

/** Polls `check` until it returns a value other than undefined, or fails naming `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await sleep(everyMs);
  }
}
