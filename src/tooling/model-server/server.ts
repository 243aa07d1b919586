import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendFileSync } from 'node:fs';
import { TurnPlan, type TurnPlanInput } from './plan.js';

/** One model request as the server saw it: the ground truth recordings are checked against. */
export interface RequestLogEntry {
  seq: number;
  protocol: string;
  method: string;
  path: string;
  streaming: boolean;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** When the first body byte of the response was written (stream really started). */
  firstByteAt: number | null;
  /** When the response ended, however it ended. */
  endedAt: number | null;
  /**
   * `aborted`: the client went away first; `disconnected`: the server cut the stream as planned.
   */
  outcome: 'completed' | 'error' | 'hung' | 'aborted' | 'disconnected' | 'pending';
  status: number;
  plan: TurnPlan | null;
}

/** What a protocol handler gets for one request. */
export interface HandlerContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: unknown;
  /** The plan this request consumes (the default plan when the queue has none that match). */
  plan: TurnPlan;
  entry: RequestLogEntry;
  /** Resolves after `ms`, or early when the client has gone away (then `gone()` is true). */
  sleep(ms: number): Promise<void>;
  gone(): boolean;
  /** Resolves when the client has gone away or the server closes: how a hang is played. */
  untilGone(): Promise<void>;
  /** Writes raw bytes, stamping the first byte time. */
  write(chunk: string): void;
  /** Writes one Server-Sent Event (`event:` line omitted when `event` is null). */
  sse(event: string | null, data: unknown): void;
  /** Cuts the connection without ending the response (a planned mid-stream disconnect). */
  disconnect(): void;
}

/** A model protocol: which requests it answers and how. */
export interface Protocol {
  name: string;
  /** True when this protocol answers the request; `streaming` tells whether the reply streams. */
  match(method: string, url: URL, body: unknown): { streaming: boolean } | null;
  handle(ctx: HandlerContext): Promise<void>;
}

export interface FakeModelServerOptions {
  protocols: Protocol[];
  port?: number;
  /** Appends each finished log entry here as JSON Lines. */
  logFile?: string;
  /** What a request gets when no queued plan is left (default: the reply `OK.`). */
  defaultPlan?: TurnPlanInput;
}

export interface FakeModelServer {
  url: string;
  port: number;
  /** Appends plans to the queue. */
  enqueue(...plans: TurnPlanInput[]): void;
  /** Drops the plans no request has taken (a CLI gave up before using them all); returns how many. */
  dropPlans(): number;
  /** Every request so far, in arrival order. */
  log(): RequestLogEntry[];
  /** Resolves when `count` requests matching `pred` have ended (or rejects after `timeoutMs`). */
  waitFor(
    pred: (e: RequestLogEntry) => boolean,
    opts?: { count?: number; timeoutMs?: number; ended?: boolean },
  ): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Starts a loopback-only fake model server. */
export async function startFakeModelServer(opts: FakeModelServerOptions): Promise<FakeModelServer> {
  const queue: TurnPlan[] = [];
  const entries: RequestLogEntry[] = [];
  const open = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());

  const takePlan = (streaming: boolean): TurnPlan => {
    const i = queue.findIndex((p) => p.match === 'any' || streaming);
    if (i < 0) return TurnPlan.parse(opts.defaultPlan ?? {});
    return queue.splice(i, 1)[0]!;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(req);
      let chosen: { protocol: Protocol; streaming: boolean } | null = null;
      for (const protocol of opts.protocols) {
        const m = protocol.match(req.method ?? 'GET', url, body);
        if (m) {
          chosen = { protocol, streaming: m.streaming };
          break;
        }
      }
      if (!chosen) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `no fake route for ${req.method} ${url.pathname}` } }),
        );
        return;
      }
      const plan = takePlan(chosen.streaming);
      const entry: RequestLogEntry = {
        seq: entries.length + 1,
        protocol: chosen.protocol.name,
        method: req.method ?? 'GET',
        path: url.pathname,
        streaming: chosen.streaming,
        receivedAt: Date.now(),
        firstByteAt: null,
        endedAt: null,
        outcome: 'pending',
        status: 200,
        plan,
      };
      entries.push(entry);
      open.add(res);
      let gone = false;
      let cut = false;
      const wake = new Set<() => void>();
      res.on('close', () => {
        gone = true;
        open.delete(res);
        wake.forEach((w) => w());
      });
      const ctx: HandlerContext = {
        req,
        res,
        url,
        body,
        plan,
        entry,
        gone: () => gone,
        untilGone: () =>
          new Promise<void>((resolve) => {
            if (gone) return resolve();
            wake.add(resolve);
          }),
        sleep: (ms) =>
          new Promise<void>((resolve) => {
            if (gone) return resolve();
            const done = () => {
              clearTimeout(timer);
              wake.delete(done);
              resolve();
            };
            const timer = setTimeout(done, ms);
            wake.add(done);
          }),
        write: (chunk) => {
          if (gone) return;
          if (entry.firstByteAt === null) entry.firstByteAt = Date.now();
          res.write(chunk);
        },
        sse: (event, data) => {
          const payload = typeof data === 'string' ? data : JSON.stringify(data);
          ctx.write(`${event === null ? '' : `event: ${event}\n`}data: ${payload}\n\n`);
        },
        disconnect: () => {
          cut = true;
          // What was written still goes out; then the socket closes mid-body (no last chunk).
          const socket = res.socket;
          if (socket) socket.destroySoon();
          else res.destroy();
        },
      };
      try {
        if (plan.delayMs > 0) await ctx.sleep(plan.delayMs);
        await chosen.protocol.handle(ctx);
        entry.status = res.statusCode;
        if (plan.hang) entry.outcome = 'hung';
        else if (cut) entry.outcome = 'disconnected';
        else if (gone && !res.writableEnded) entry.outcome = 'aborted';
        else entry.outcome = res.statusCode >= 400 ? 'error' : 'completed';
      } catch (err) {
        entry.outcome = 'error';
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      } finally {
        if (!res.writableEnded && !plan.hang && !cut) res.end();
        entry.endedAt = Date.now();
        if (opts.logFile) appendFileSync(opts.logFile, JSON.stringify(entry) + '\n');
        notify();
      }
    })();
  });

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    enqueue: (...plans) => queue.push(...plans.map((p) => TurnPlan.parse(p))),
    dropPlans: () => queue.splice(0).length,
    log: () => entries.slice(),
    waitFor: (pred, o = {}) =>
      new Promise((resolve, reject) => {
        const count = o.count ?? 1;
        const check = () => {
          const hits = entries.filter((e) => pred(e) && (o.ended === false || e.endedAt !== null));
          if (hits.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hits);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake model: timed out waiting for ${count} request(s)`));
        }, o.timeoutMs ?? 60_000);
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
