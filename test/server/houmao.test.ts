/**
 * The original design's routes (`/houmao/terminals/{id}/state|input`) over real HTTP against a
 * real tmux pane running the stand-in agent: every field of the state under its snake_case name
 * equals the `/v1` state's, the input goes through the same gate, and the route is attacked as
 * `POST /v1/terminals/{id}/input` is (foreign Host or Origin, no token, control bytes, a huge
 * body): none of those types anything.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { HoumaoState } from '../../src/schemas/operations/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const TOKEN = 'a-long-enough-test-token-for-houmao-0123';
const MAX_BODY = 4096;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('the original routes /houmao/terminals/{id}/state and /input, on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let port = 0;

  /** One raw HTTP request (`fetch` would not let a test choose `Host`). */
  const call = (
    method: string,
    path: string,
    opts: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${TOKEN}`,
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      };
      for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
      const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
          }),
        );
      });
      req.on('error', reject);
      req.end(opts.body);
    });
  const state = async () => {
    const r = await call('GET', '/houmao/terminals/a1/state');
    expect(r.status).toBe(200);
    return HoumaoState.strict().parse(r.body);
  };
  const until = (pred: (s: TerminalState) => boolean, ms = 15_000) =>
    firstValueFrom(sup.state$('a1').pipe(filter(pred), timeout(ms)));
  const turnsStarted = async () => {
    await sup.journal.flush();
    return sup.journal.read(0, 'a1').filter((r) => r.kind === 'turn.started').length;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-houmao-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '1500' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    await sup.attach({ target: agent.target, tool: 'stand_in', id: 'a1' });
    await until((s) => s.readiness.status === 'ready');
    http = createHttpApp(sup, { token: TOKEN, maxBodyBytes: MAX_BODY });
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  }, 30_000);

  afterAll(async () => {
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the state: every /v1 field under its snake_case name, with the operations and the recent transitions', async () => {
    // The steps are those the journal has acknowledged (as `/v1/terminals/{id}/history`).
    await sup.journal.flush();
    const h = await state();
    const v1 = sup.get('a1');
    const ops = sup.operations('a1');
    // The original names the issue lists.
    expect(h.diagnostics.availability).toBe('available');
    expect(h.surface.accepting_input).toBe('yes');
    expect(h.surface.editing_input).toBe('no');
    expect(h.surface.ready_posture).toBe('yes');
    expect(h.turn.phase).toBe('ready');
    expect(h.last_turn).toEqual({
      result: 'none',
      source: 'none',
      turn_id: null,
      at: null,
      witness: null,
    });
    expect(h.stability).toEqual({
      stable: v1.stability.stable,
      stable_for_seconds: v1.stability.stableForSeconds,
    });
    expect(h.stability.stable_for_seconds).toBeGreaterThanOrEqual(0);
    // The readiness chart's way to `ready` is among the steps, oldest first.
    expect(h.recent_transitions).toContainEqual(
      expect.objectContaining({ machine: 'readiness', to: 'ready' }),
    );
    const seqs = h.recent_transitions.map((x) => x.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // Every other field, each equal to its /v1 counterpart (the pane is idle: nothing moves but
    // the clock).
    expect(h).toMatchObject({
      terminal_id: 'a1',
      target: v1.target,
      tool: 'stand_in',
      tool_version: v1.toolVersion,
      tool_version_verified: v1.toolVersionVerified,
      diagnostics: {
        transport: 'tmux_up',
        process: 'tui_up',
        parse: 'parsed',
        error: null,
      },
      surface: {
        availability: 'supported',
        business_state: 'idle',
        input_mode: 'freeform',
        ui_context: v1.surface.uiContext,
        blocked_prompt: null,
        active_reasons: [],
      },
      turn: { since: v1.turn.since, current: null },
      witness: null,
      readiness: { status: 'ready', since: v1.readiness.since },
      completion: null,
      chat_context: { state: v1.chatContext.state },
      watchdog: {
        state: v1.watchdog.state,
        session_started_at: v1.watchdog.sessionStartedAt,
        budget_seconds: v1.watchdog.budgetSeconds,
      },
      session: { status: 'running', stop_reason_code: null },
      operations: {
        send_input: ops.sendInput,
        interrupt: ops.interrupt,
        resume: ops.resume,
        detach: ops.detach,
      },
    });
    expect(h.operations.send_input).toEqual({
      allowed: 'yes',
      reason: 'the agent waits for a prompt',
    });
    expect(Math.abs(h.t - v1.t)).toBeLessThan(2);
    // No camelCase name anywhere.
    const names = (v: unknown): string[] =>
      v === null || typeof v !== 'object'
        ? []
        : Array.isArray(v)
          ? v.flatMap(names)
          : Object.entries(v).flatMap(([k, x]) => [k, ...names(x)]);
    expect(names(h).filter((k) => /[A-Z]/.test(k))).toEqual([]);
  });

  it('an unknown terminal is a 404 on both routes', async () => {
    const get = await call('GET', '/houmao/terminals/nope/state');
    expect(get.status).toBe(404);
    expect(get.body).toMatchObject({ error: { code: 'unknown_terminal' } });
    const post = await call('POST', '/houmao/terminals/nope/input', {
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(post.status).toBe(404);
  });

  it('attacked as the /v1 input route is: nothing gets through, nothing is typed', async () => {
    const before = await turnsStarted();
    const body = JSON.stringify({ text: 'rm -rf ~', force: true });
    const path = '/houmao/terminals/a1/input';
    for (const p of [path, '/houmao/terminals/a1/state']) {
      const method = p === path ? 'POST' : 'GET';
      const opts = method === 'POST' ? { body } : {};
      // A name that is not the service's (DNS rebinding).
      const rebound = await call(method, p, { ...opts, headers: { host: 'evil.example' } });
      expect(rebound.status, p).toBe(403);
      expect(JSON.stringify(rebound.body)).toContain('header `Host`');
      // No token, a wrong one.
      expect((await call(method, p, { ...opts, headers: { authorization: '' } })).status).toBe(401);
      const wrong = await call(method, p, {
        ...opts,
        headers: { authorization: `Bearer ${TOKEN}x` },
      });
      expect(wrong.status).toBe(401);
    }
    // A foreign Origin may not act.
    const foreign = await call('POST', path, {
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(foreign.body)).toContain('header `Origin`');
    // A form's body (no JSON type, no X-Paneward) may not act.
    const form = await call('POST', path, {
      body,
      headers: { 'content-type': 'text/plain' },
    });
    expect(form.status).toBe(403);
    // Control bytes: refused naming the field.
    for (const text of ['ls\u001b[201~; rm -rf ~', 'a\u0003b', 'x\u0000']) {
      const ctl = await call('POST', path, { body: JSON.stringify({ text }) });
      expect(ctl.status, JSON.stringify(text)).toBe(400);
      expect(ctl.body).toMatchObject({ error: { code: 'invalid_input' } });
      expect(JSON.stringify(ctl.body)).toContain('text');
    }
    // A field the contract does not have: refused naming it.
    const extra = await call('POST', path, { body: JSON.stringify({ text: 'hi', keys: 'C-c' }) });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body)).toContain('keys');
    // Not JSON.
    const garbled = await call('POST', path, { body: '{"text":' });
    expect(garbled.status).toBe(400);
    // A huge body.
    const huge = await call('POST', path, {
      body: JSON.stringify({ text: 'y'.repeat(MAX_BODY * 4) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(await turnsStarted()).toBe(before);
    expect(await agent.capture()).not.toContain('rm -rf');
    expect((await state()).operations.send_input.allowed).toBe('yes');
  });

  it('the input goes through the same gate: 202 with the turn id, a second prompt while it runs is a 409, then the last turn reads its success', async () => {
    const sent = await call('POST', '/houmao/terminals/a1/input', {
      body: JSON.stringify({ text: 'say hello' }),
    });
    expect(sent.status).toBe(202);
    const turnId = (sent.body as { turn_id: string }).turn_id;
    expect(turnId).toMatch(/^turn-\d+$/);
    expect(Object.keys(sent.body)).toEqual(['turn_id']);

    const busy = await state();
    expect(busy.turn.phase).toBe('active');
    expect(busy.turn.current).toMatchObject({ id: turnId, source: 'explicit_input' });
    expect(busy.turn.current!.started_at).toBeGreaterThan(0);
    expect(busy.completion).toMatchObject({ turn_id: turnId, saw_working: expect.any(Boolean) });
    expect(busy.operations.send_input).toEqual({
      allowed: 'no',
      reason: `the agent is working: turn ${turnId} is running; wait for it to end or interrupt it`,
    });
    expect(busy.operations.interrupt.allowed).toBe('yes');

    const again = await call('POST', '/houmao/terminals/a1/input', {
      body: JSON.stringify({ text: 'too soon' }),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: { code: 'not_ready', details: { operation: 'sendInput', allowed: 'no' } },
    });
    // The same answer the /v1 route gives.
    const v1 = await call('POST', '/v1/terminals/a1/input', {
      body: JSON.stringify({ text: 'too soon' }),
    });
    expect(v1.status).toBe(409);
    expect(v1.body).toEqual(again.body);

    await until((s) => s.lastTurn.turnId === turnId && s.lastTurn.result === 'success');
    const done = await state();
    expect(done.last_turn).toMatchObject({
      result: 'success',
      source: 'explicit_input',
      turn_id: turnId,
      at: expect.any(Number),
    });
    expect(done.recent_transitions).toContainEqual(
      expect.objectContaining({ machine: 'turnPhase', to: 'active', turn_id: turnId }),
    );
    expect(done.recent_transitions.length).toBeLessThanOrEqual(20);
    expect(await agent.capture()).toContain('say hello');
    expect(await agent.capture()).not.toContain('too soon');
  }, 30_000);

  it('a dialog on screen: blocked_prompt is named and send_input is a no', async () => {
    await until((s) => s.readiness.status === 'ready');
    const sent = await call('POST', '/houmao/terminals/a1/input', {
      body: JSON.stringify({ text: 'ask: may I?' }),
    });
    expect(sent.status).toBe(202);
    await until((s) => s.readiness.status === 'blocked');
    const asked = await state();
    expect(asked.readiness.status).toBe('blocked');
    expect(asked.surface.blocked_prompt).not.toBeNull();
    expect(asked.operations.send_input).toMatchObject({
      allowed: 'no',
      reason: expect.stringMatching(/^the agent waits for the operator/),
    });
    await agent.sendText('n');
    await agent.sendKeys('Enter');
    await until((s) => s.readiness.status === 'ready');
  }, 30_000);
});

describe('docs/service.md names every field of the original state', () => {
  it('each name of HoumaoState is in its section', () => {
    const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## The original routes'), doc.indexOf('## Dashboard'));
    const names = (schema: unknown): string[] => {
      let s = schema as {
        unwrap?: () => unknown;
        shape?: Record<string, unknown>;
        element?: unknown;
      };
      while (typeof s.unwrap === 'function' && s.shape === undefined) s = s.unwrap() as typeof s;
      if (s.element !== undefined) return names(s.element);
      if (s.shape === undefined) return [];
      return Object.entries(s.shape).flatMap(([k, v]) => [k, ...names(v)]);
    };
    const all = [...new Set(names(HoumaoState))];
    expect(all.length).toBeGreaterThan(40);
    const top = ['terminal_id', 'target', 'tool', 'tool_version', 't', 'diagnostics', 'surface'];
    const missing = all.filter((n) => !top.includes(n) && !section.includes(n));
    expect(missing).toEqual([]);
  });
});
