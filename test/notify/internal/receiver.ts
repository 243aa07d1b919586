import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** One request a receiver took: its headers and its parsed JSON body. */
export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
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
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      received.push({ at: Date.now(), headers: req.headers, body });
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
