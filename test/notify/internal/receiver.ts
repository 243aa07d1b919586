import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** One request a receiver took: its headers, its body's bytes and that body parsed as JSON. */
export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  body: unknown;
}

/**
 * A real webhook receiver on 127.0.0.1: each request is read whole, kept, then answered as
 * `answer` says (given the request's number, from 1). `answer` may wait or never answer.
 */
export async function startReceiver(
  answer: (n: number, res: ServerResponse) => unknown = (_, res) => res.writeHead(204).end(),
): Promise<{
  url: string;
  received: Received[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
      received.push({ at: Date.now(), headers: req.headers, raw, body });
      for (const w of waiters.splice(0)) w();
      void answer(received.length, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(count, ms = 10_000) {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) {
          throw new Error(`the receiver got ${received.length} requests, not ${count}`);
        }
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
      return received.slice(0, count);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
