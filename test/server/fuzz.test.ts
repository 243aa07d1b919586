import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { SupervisorPort } from '../../src/service/port.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { RUNS, request, ACTIONS, hostile } from './internal/hostile-requests.js';

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
    await sup.attach({ target: agent.target, tool: 'stand_in', id: 'f1' });
    http = createHttpApp(sup, { sse: { heartbeatMs: 50 } });
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses hostile requests (foreign Host or Origin, simple posts, huge numbers, control characters) naming what, and the supervisor is never asked to act', async () => {
    const asked: string[] = [];
    const port = new Proxy(sup as unknown as SupervisorPort, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (ACTIONS.has(String(key))) asked.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const guarded = createHttpApp(port, { sse: { heartbeatMs: 50 } });
    const kinds = new Map<string, number>();
    try {
      await fc.assert(
        fc.asyncProperty(hostile, async (h) => {
          asked.length = 0;
          const abort = new AbortController();
          const timer = setTimeout(() => abort.abort(), 300);
          try {
            const res = await guarded.app.request(h.path, {
              method: h.method,
              headers: h.headers,
              ...(h.body === undefined || h.method === 'GET' ? {} : { body: h.body }),
              signal: abort.signal,
            });
            const label = `${h.what}: ${h.method} ${h.path} ${JSON.stringify(h.headers)} ${h.body ?? ''}`;
            expect(res.status, label).toBe(h.status);
            const body = (await res.json()) as { error: { code: string; message: string } };
            expect(body.error.message, label).toContain(h.names);
            expect(asked, label).toEqual([]);
            kinds.set(h.what, (kinds.get(h.what) ?? 0) + 1);
          } finally {
            clearTimeout(timer);
          }
        }),
        {
          numRuns: Math.max(200, Math.round(RUNS / 3)),
          seed: Number(process.env.PANEWARD_FUZZ_SEED ?? 424242),
        },
      );
    } finally {
      guarded.close();
    }
    console.log(`hostile fuzz: ${JSON.stringify(Object.fromEntries(kinds))}`);
    expect([...kinds.keys()].sort()).toHaveLength(5);
    // Nothing reached the pane.
    expect(await agent.capture()).not.toContain('FUZZ-TYPED');
  }, 300_000);

  it(`answers ${RUNS} random requests with no 5xx, a JSON error naming what is wrong for every 4xx`, async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ route: [method, path], ...r }) => {
        // A detach among the requests: attach it again, so later ones reach its routes.
        if (!sup.ids().includes('f1'))
          await sup.attach({ target: agent.target, tool: 'stand_in', id: 'f1' });
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
        headers: { 'x-paneward': '1' },
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
