import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const TOKEN = 'a-long-enough-test-token-0123456789';

describe('the HTTP API (contracts.md §5) on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    http.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; message: string } }).error;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-http-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '800' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    http = createHttpApp(sup);
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an OpenAPI document that validates and names every route', async () => {
    const doc = (await (await call('GET', '/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    // The validator does notice a broken document .
    const broken = structuredClone(doc) as {
      paths: Record<string, { get?: { parameters?: unknown } }>;
    };
    broken.paths['/healthz']!.get!.parameters = [{ name: 'x', in: 'nowhere' }];
    const verdict = await validate(broken as never);
    expect(verdict.valid).toBe(false);
    expect(await validate(structuredClone(doc) as never)).toMatchObject({ valid: true });
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/healthz',
        '/houmao/terminals/{id}/input',
        '/houmao/terminals/{id}/state',
        '/metrics',
        '/v1/events',
        '/v1/hooks/{tool}',
        '/v1/spawn-presets',
        '/v1/terminals',
        '/v1/terminals/{id}',
        '/v1/terminals/{id}/answer',
        '/v1/terminals/{id}/events',
        '/v1/terminals/{id}/history',
        '/v1/terminals/{id}/input',
        '/v1/terminals/{id}/interrupt',
        '/v1/terminals/{id}/observations',
        '/v1/terminals/{id}/resume',
        '/v1/terminals/{id}/screen',
        '/v1/terminals/{id}/turns',
        '/v1/terminals/{id}/turns/{turnId}',
      ].sort(),
    );
  });

  it('attaches a pane of this tmux server, detecting its tool, and refuses others naming the field', async () => {
    const res = await call('POST', '/v1/terminals', { target: agent.target, id: 'a1' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      terminalId: 'a1',
      target: agent.target,
      tool: 'stand_in',
    });
    for (const [body, field] of [
      [{ target: '%987' }, 'target'],
      [{ target: 'not a pane!' }, 'target'],
      [{ target: agent.target, tool: 'no_such_cli' }, 'tool'],
      [{ target: agent.target, sessionWallClockSeconds: -1 }, 'sessionWallClockSeconds'],
      [{ target: agent.target, extra: true }, 'extra'],
      [{}, 'target'],
    ] as const) {
      const r = await call('POST', '/v1/terminals', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const e = await errorOf(r);
      expect(e.code).toBe('invalid_input');
      expect(e.message).toContain(`\`${field}\``);
    }
    const dup = await call('POST', '/v1/terminals', { target: agent.target, id: 'a1' });
    expect(dup.status).toBe(400);
    expect((await errorOf(dup)).message).toMatch(/already attached/);
    // One pane is one terminal, by whichever name: asked again for nothing else, the answer is
    // the terminal it already is; asked for another id or tool, a refusal naming the target.
    const paneId = (
      await agent.transport.run(['display-message', '-p', '-t', agent.target, '#{pane_id}'])
    ).trim();
    expect(paneId).toMatch(/^%\d+$/);
    for (const target of [agent.target, paneId]) {
      const again = await call('POST', '/v1/terminals', { target });
      expect(again.status, target).toBe(201);
      expect(await again.json()).toMatchObject({ terminalId: 'a1', target: agent.target, paneId });
    }
    // The list says the pane's id too: `%N` resolves from anywhere the service answers.
    const { terminals } = (await (await call('GET', '/v1/terminals')).json()) as { terminals: [] };
    expect(terminals).toContainEqual(expect.objectContaining({ terminalId: 'a1', paneId }));
    for (const body of [
      { target: paneId, id: 'a2' },
      { target: paneId, tool: 'claude_code' },
    ]) {
      const r = await call('POST', '/v1/terminals', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((await errorOf(r)).message).toBe(
        `attach: field \`target\`: pane ${paneId} is already attached as a1 (stand_in)`,
      );
    }
    expect(sup.ids()).toEqual(['a1']);
    const bad = await call('POST', '/v1/terminals', '{not json');
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({
      code: 'invalid_input',
      message: 'body: not valid JSON',
    });
  });

  it('reads state with the operations acceptable now; sends input (202) and refuses it while not ready (409)', async () => {
    await firstValueFrom(
      sup.state$('a1').pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(10_000),
      ),
    );
    const state = (await (await call('GET', '/v1/terminals/a1')).json()) as {
      operations: { sendInput: { allowed: string } };
      readiness: { status: string; since: number };
    };
    expect(state.operations.sendInput).toEqual({
      allowed: 'yes',
      reason: 'the agent waits for a prompt',
    });
    const sent = await call('POST', '/v1/terminals/a1/input', { text: 'first by http' });
    expect(sent.status).toBe(202);
    const { turnId } = (await sent.json()) as { turnId: string };
    expect(turnId).toMatch(/^turn-\d+$/);
    const refused = await call('POST', '/v1/terminals/a1/input', { text: 'second too soon' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: { code: 'not_ready', details: { pendingTurnId: turnId } },
    });
    const busy = (await (await call('GET', '/v1/terminals/a1')).json()) as {
      operations: { sendInput: unknown };
    };
    // The turn it typed runs: a no (the agent is working), not a wait for its completion.
    expect(busy.operations.sendInput).toMatchObject({
      allowed: 'no',
      reason: `the agent is working: turn ${turnId} is running; wait for it to end or interrupt it`,
    });
    const list = (await (await call('GET', '/v1/terminals')).json()) as {
      terminals: Array<{ terminalId: string }>;
    };
    expect(list.terminals.map((t) => t.terminalId)).toEqual(['a1']);
    for (const [body, field] of [
      [{ text: '' }, 'text'],
      [{ text: 'x', force: 'yes' }, 'force'],
      [{ words: 'x' }, 'text'],
    ] as const) {
      const r = await call('POST', '/v1/terminals/a1/input', body);
      expect(r.status).toBe(400);
      expect((await errorOf(r)).message).toContain(`\`${field}\``);
    }
  });

  it('runs a turn to its end and answers its outcome; a short timeout answers `timeout`', async () => {
    await firstValueFrom(
      sup.state$('a1').pipe(
        filter((s) => s.readiness.status === 'ready' && s.completion?.status === 'completed'),
        timeout(10_000),
      ),
    );
    const res = await call('POST', '/v1/terminals/a1/turns', {
      prompt: 'a whole turn',
      timeoutSeconds: 20,
    });
    expect(res.status).toBe(200);
    const whole = (await res.json()) as { turnId: string };
    expect(whole).toMatchObject({
      result: 'completed',
      lastTurn: { result: 'success', source: 'explicit_input' },
    });
    // A turn that is over is answered at once by the wait route too, completion cleared or not.
    await firstValueFrom(
      sup.state$('a1').pipe(
        filter((s) => s.completion === null || s.completion.turnId !== whole.turnId),
        timeout(10_000),
      ),
    ).catch(() => null);
    const again = await call('GET', `/v1/terminals/a1/turns/${whole.turnId}?timeoutSeconds=1`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      turnId: whole.turnId,
      result: 'completed',
      lastTurn: { result: 'success', turnId: whole.turnId },
    });
    for (const q of ['timeoutSeconds=1e308', 'timeoutSeconds=0', 'timeoutSeconds=86401']) {
      const r = await call('GET', `/v1/terminals/a1/turns/${whole.turnId}?${q}`);
      expect(r.status, q).toBe(400);
      expect((await errorOf(r)).message).toContain('`timeoutSeconds`');
    }
    const quick = await call('POST', '/v1/terminals/a1/turns', {
      prompt: 'cut short',
      timeoutSeconds: 0.2,
    });
    expect(quick.status).toBe(200);
    expect(await quick.json()).toMatchObject({ result: 'timeout' });
    for (const body of [
      { prompt: 'x', timeoutSeconds: 0 },
      { prompt: 'x', timeoutSeconds: 'soon' },
      { prompt: 'x', timeoutSeconds: 1e9 },
    ]) {
      const r = await call('POST', '/v1/terminals/a1/turns', body);
      expect(r.status).toBe(400);
      expect((await errorOf(r)).message).toContain('`timeoutSeconds`');
    }
  });

  it('history, interrupt, resume, 404 for an unknown terminal, 404 for an unknown route', async () => {
    const h = await call('GET', '/v1/terminals/a1/history?limit=3');
    expect(h.status).toBe(200);
    expect(((await h.json()) as { records: unknown[] }).records).toHaveLength(3);
    expect((await call('GET', '/v1/terminals/a1/history?limit=0')).status).toBe(400);
    // The action does what the verdict the state publishes says.
    const { operations } = (await (await call('GET', '/v1/terminals/a1')).json()) as {
      operations: { interrupt: { allowed: string } };
    };
    const interrupt = await call('POST', '/v1/terminals/a1/interrupt');
    expect(interrupt.status).toBe(operations.interrupt.allowed === 'yes' ? 200 : 409);
    // The session is not blocked: resume is refused, with the verdict's reason.
    const resume = await call('POST', '/v1/terminals/a1/resume');
    expect(resume.status).toBe(409);
    expect(await errorOf(resume)).toMatchObject({
      code: 'refused',
      details: { reason: 'the session is not blocked' },
    });
    for (const [method, path] of [
      ['GET', '/v1/terminals/nope'],
      ['POST', '/v1/terminals/nope/interrupt'],
      ['DELETE', '/v1/terminals/nope'],
      ['GET', '/v1/terminals/nope/events'],
    ] as const) {
      const r = await call(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(r)).code).toBe('unknown_terminal');
    }
    expect((await call('GET', '/v2/whatever')).status).toBe(404);
    expect((await call('GET', '/v1/terminals/bad%20id!')).status).toBe(400);
  });

  it('health and Prometheus metrics', async () => {
    expect(await (await call('GET', '/healthz')).json()).toMatchObject({
      status: 'ok',
      terminals: 1,
    });
    const text = await (await call('GET', '/metrics')).text();
    expect(text).toMatch(
      /paneward_terminals\{readiness="\w+",phase="\w+",availability="available"\} 1/,
    );
    expect(text).toMatch(/paneward_transitions_total\{machine="readiness",to="ready"\} \d+/);
    expect(text).toMatch(/paneward_sample_seconds_count \d+/);
    expect(text).toMatch(/paneward_journal_append_seconds_count \d+/);
    expect(text).toMatch(/paneward_sse_clients 0/);
    // Per-host gauges are a fleet server's.
    expect(text).not.toContain('paneward_fleet_');
  });

  it('detaches (recorded) and the terminal is gone', async () => {
    expect((await call('DELETE', '/v1/terminals/a1')).status).toBe(200);
    expect((await call('GET', '/v1/terminals/a1')).status).toBe(404);
    await sup.journal.flush();
    expect(sup.journal.read().at(-1)).toMatchObject({
      kind: 'terminal.detached',
      terminalId: 'a1',
    });
  });
});

describe('security defaults of the HTTP app', () => {
  let sup: Supervisor;
  let http: HttpApp;
  beforeAll(() => {
    sup = createSupervisor({ dataDir: null, socketName: 'pw-http-none' });
    http = createHttpApp(sup, {
      token: TOKEN,
      maxBodyBytes: 1024,
      corsOrigins: ['https://dash.example'],
    });
  });
  afterAll(async () => {
    http.close();
    await sup.stop();
  });

  it('wants the bearer token on every route but /healthz and /openapi.json', async () => {
    for (const path of ['/v1/terminals', '/metrics', '/v1/events', '/v1/spawn-presets']) {
      const r = await http.app.request(path);
      expect(r.status, path).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await http.app.request(path, {
        headers: { authorization: `Bearer ${TOKEN}x` },
      });
      expect(wrong.status).toBe(401);
    }
    expect((await http.app.request('/healthz')).status).toBe(200);
    expect((await http.app.request('/openapi.json')).status).toBe(200);
    const ok = await http.app.request('/v1/terminals', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
  });

  it('limits request bodies', async () => {
    const r = await http.app.request('/v1/terminals', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target: '%1', id: 'x'.repeat(4000) }),
    });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('answers CORS only for the configured origins', async () => {
    const allowed = await http.app.request('/healthz', {
      headers: { origin: 'https://dash.example' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example');
    const other = await http.app.request('/healthz', {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const plain = createHttpApp(sup);
    const none = await plain.app.request('/healthz', {
      headers: { origin: 'https://dash.example' },
    });
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
    plain.close();
  });
});

describe('embedding', () => {
  it("mounts in a service's own node:http server beside its routes", async () => {
    const sup = createSupervisor({ dataDir: null, socketName: 'pw-http-embed' });
    const api = createHttpApp(sup);
    const server: Server = createServer((req, res) => {
      if (req.url === '/mine') {
        res.end('my own route');
        return;
      }
      api.listener(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/mine`)).text()).toBe('my own route');
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await health.json()).toMatchObject({ status: 'ok', terminals: 0 });
    } finally {
      server.close();
      api.close();
      await sup.stop();
    }
  });
});
