import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const RUNS = Number(process.env.PANEWARD_FUZZ_RUNS ?? 3000);

/** Path segments a client could send: the real ones, ids, and junk. */
const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'terminals',
    'events',
    'history',
    'input',
    'turns',
    'interrupt',
    'resume',
    'healthz',
    'metrics',
    'openapi.json',
    'f1',
    't1',
    'nope',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constantFrom('..', '%00', '%2F', '%E2%9D%AF', 'a'.repeat(300)),
);
/** The routes as they are, with their methods, and random paths and methods. */
const ROUTES: Array<[string, string]> = [
  ['GET', '/v1/terminals'],
  ['POST', '/v1/terminals'],
  ['GET', '/v1/terminals/f1'],
  ['DELETE', '/v1/terminals/f1'],
  ['POST', '/v1/terminals/f1/input'],
  ['POST', '/v1/terminals/f1/turns'],
  ['GET', '/v1/terminals/f1/history'],
  ['POST', '/v1/terminals/f1/interrupt'],
  ['POST', '/v1/terminals/f1/resume'],
  ['GET', '/v1/events'],
  ['GET', '/v1/terminals/f1/events'],
  ['GET', '/healthz'],
  ['GET', '/openapi.json'],
  ['GET', '/metrics'],
];
const methodAndPath = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ROUTES) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
    ),
  },
);
const query = fc
  .option(
    fc.dictionary(
      fc.constantFrom('limit', 'since', 'x', ''),
      fc.oneof(fc.integer().map(String), fc.string({ maxLength: 8 })),
    ),
    { nil: undefined },
  )
  .map((q) => (q ? `?${new URLSearchParams(q).toString()}` : ''));
const json = fc.oneof(
  fc
    .record(
      {
        text: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null)),
        prompt: fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.string())),
        force: fc.oneof(fc.boolean(), fc.string()),
        timeoutSeconds: fc.oneof(fc.double(), fc.integer(), fc.string()),
        target: fc.oneof(
          fc.constantFrom('%0', 'pw:0.0', 's:w.1', ''),
          fc.string({ maxLength: 10 }),
        ),
        tool: fc.oneof(
          fc.constantFrom('claude_code', 'unsupported', 'stand_in'),
          fc.string({ maxLength: 8 }),
        ),
        id: fc.string({ maxLength: 70 }),
        sessionWallClockSeconds: fc.oneof(fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
);
const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    ),
    'last-event-id': fc.oneof(fc.nat().map(String), fc.string({ maxLength: 10 })),
    authorization: fc.string({ maxLength: 30 }),
    origin: fc.constantFrom('https://evil.example', 'null'),
  },
  { requiredKeys: [] },
);
const request = fc.record({
  route: methodAndPath,
  query,
  body: fc.option(json, { nil: undefined }),
  headers,
});

describe('every route under random requests', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fuzz-'));
    // Random prompts may end the agent (a typed Ctrl-D): its pane stays, dead, as in real use.
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '50' },
      command: [process.execPath, STAND_IN_AGENT],
      remainOnExit: true,
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.2 },
      profiles: { stand_in: standInProfile },
    });
    sup.attach({ target: agent.target, tool: 'stand_in', id: 'f1' });
    http = createHttpApp(sup, { sse: { heartbeatMs: 50 } });
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`answers ${RUNS} random requests with no 5xx, a JSON error naming what is wrong for every 4xx`, async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ route: [method, path], ...r }) => {
        // A detach among the requests: attach it again, so later ones reach its routes.
        if (!sup.ids().includes('f1'))
          sup.attach({ target: agent.target, tool: 'stand_in', id: 'f1' });
        const abort = new AbortController();
        // Waits (turns, event streams) are cut short: the answer so far is what counts.
        const timer = setTimeout(() => abort.abort(), 300);
        try {
          const init: RequestInit = {
            method,
            headers: r.headers as Record<string, string>,
            signal: abort.signal,
          };
          if (r.body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = r.body;
          const res = await http.app.request(`${path}${r.query}`, init);
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          expect(res.status, `${method} ${path}${r.query} ${r.body ?? ''}`).toBeLessThan(500);
          if (res.status >= 400 && res.status !== 499 && method !== 'HEAD') {
            const body = (await res.json()) as { error?: { code?: string; message?: string } };
            expect(body.error?.code).toEqual(expect.any(String));
            expect(body.error?.message).toEqual(expect.any(String));
          } else {
            await res.body?.cancel().catch(() => {});
          }
        } finally {
          clearTimeout(timer);
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.PANEWARD_FUZZ_SEED ?? 424242) },
    );
    console.log(
      `fuzz: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...seen].sort()))}`,
    );
    // Still up, still supervising: what the fuzz attached detaches, and the pane attaches anew.
    expect(await (await http.app.request('/healthz')).json()).toMatchObject({ status: 'ok' });
    const listed = (await (await http.app.request('/v1/terminals')).json()) as {
      terminals: Array<{ terminalId: string }>;
    };
    for (const { terminalId } of listed.terminals) {
      const del = await http.app.request(`/v1/terminals/${encodeURIComponent(terminalId)}`, {
        method: 'DELETE',
      });
      expect(del.status, terminalId).toBeLessThan(300);
    }
    const again = await http.app.request('/v1/terminals', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: agent.target, tool: 'stand_in', id: 'after' }),
    });
    expect(again.status).toBe(201);
  }, 600_000);
});
