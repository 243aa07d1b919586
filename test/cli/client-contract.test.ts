import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/client.js';
import { main } from '../../src/cli/main.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/**
 * A server that answers 200 with bodies the operations' contracts do not allow (another
 * program on the port, or a server of another version): the client says so and exits 8,
 * instead of printing `undefined` and exiting 0.
 */
describe('the client checks every answer against the operation contract', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/terminals/t1') res.end(JSON.stringify({ terminalId: 't1' }));
      else if (req.url === '/v1/terminals/t1/input') res.end(JSON.stringify({ turn: 'turn-1' }));
      else if (req.url === '/v1/terminals') res.end(JSON.stringify({ items: [] }));
      else res.end(JSON.stringify({ ok: false }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server.close());

  it.each([
    [['state', 't1'], 'GET /v1/terminals/t1', 'readiness'],
    [['send', 't1', 'hello'], 'POST /v1/terminals/t1/input', 'turnId'],
    [['ls'], 'GET /v1/terminals', 'terminals'],
    [['interrupt', 't1'], 'POST /v1/terminals/t1/interrupt', 'ok'],
  ])('%j: exit 8 naming the route and the field', async (argv, route, field) => {
    const r = await cli(...argv, '--url', url);
    expect(r.code, r.err).toBe(EXIT.server);
    expect(r.out).toBe('');
    expect(r.err).toContain(`answered ${route} with something else`);
    expect(r.err).toContain(field);
  });
});
