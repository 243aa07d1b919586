import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';

const TOKEN = 'a-token-of-at-least-sixteen-characters';

/**
 * `POST /v1/hooks/{tool}` on a real tmux server: the pane a hook names is found by the tmux
 * server's socket and pid and the pane id, and nothing is ever typed.
 */
describe('POST /v1/hooks/{tool}, on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let pane = '';
  let tmux = '';
  const post = (tool: string, body: unknown, headers: Record<string, string> = {}) =>
    http.app.request(`/v1/hooks/${tool}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const errorOf = async (r: Response) =>
    ((await r.json()) as { error: { code: string; message: string } }).error;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-hook-route-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    const out = await agent.transport.run([
      'display-message',
      '-p',
      '-t',
      agent.target,
      '#{pane_id}\t#{socket_path},#{pid},#{session_id}',
    ]);
    [pane = '', tmux = ''] = out.trim().split('\t');
    tmux = tmux.replace(/,\$(\d+)$/, ',$1');
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1 },
    });
    await sup.attach({ target: agent.target, tool: 'claude_code', id: 'c1' });
    http = createHttpApp(sup, { token: TOKEN });
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes an event of the pane a terminal supervises, and types nothing', async () => {
    const before = await agent.capture();
    const r = await post('claude_code', { event: 'UserPromptSubmit', pane, tmux });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ terminalId: 'c1', taken: 'turn_started' });
    const f = await post('claude_code', {
      event: 'StopFailure',
      pane,
      tmux,
      error: 'server_error',
    });
    expect(await f.json()).toEqual({ terminalId: 'c1', taken: 'turn_ended' });
    // An event that tells nothing about turns is answered and ignored.
    const n = await post('claude_code', { event: 'Notification', pane, tmux });
    expect(await n.json()).toEqual({ terminalId: 'c1', taken: 'ignored' });
    await new Promise((res) => setTimeout(res, 300));
    expect(await agent.capture()).toBe(before);
  });

  it('a pane no terminal supervises, or of another tmux server, is a clear 404', async () => {
    const other = await post('claude_code', { event: 'Stop', pane: '%999', tmux });
    expect(other.status).toBe(404);
    expect((await errorOf(other)).message).toContain('%999');
    const [path, pid] = tmux.split(',');
    for (const t of [`/tmp/elsewhere/default,${pid},0`, `${path},1,0`]) {
      const r = await post('claude_code', { event: 'Stop', pane, tmux: t });
      expect(r.status, t).toBe(404);
      expect((await errorOf(r)).message).toContain('`tmux`');
    }
  });

  it('refuses bad input naming the field, an unknown tool, and a tool the pane is not', async () => {
    for (const [body, field] of [
      [{ event: 'Stop', pane: '3', tmux }, 'pane'],
      [{ event: 'Stop; rm -rf', pane, tmux }, 'event'],
      [{ event: 'Stop', pane, tmux: 'nonsense' }, 'tmux'],
      [{ event: 'Stop', pane, tmux, error: 'x'.repeat(65) }, 'error'],
      [{ event: 'Stop', pane, tmux, prompt: 'the text' }, 'prompt'],
    ] as const) {
      const r = await post('claude_code', body);
      expect(r.status, field).toBe(400);
      expect((await errorOf(r)).message, field).toContain(field);
    }
    const unknown = await post('notatool', { event: 'Stop', pane, tmux });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).message).toContain('`tool`');
    const codex = await post('codex', { event: 'Stop', pane, tmux });
    expect(codex.status).toBe(400);
  });

  it('has the protections of every route that acts: token, Origin, JSON, a small body', async () => {
    const body = { event: 'Stop', pane, tmux };
    expect((await post('claude_code', body, { authorization: '' })).status).toBe(401);
    expect((await post('claude_code', body, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post('claude_code', body, { 'content-type': 'text/plain' })).status).toBe(403);
    const big = await post('claude_code', { ...body, pad: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
  });
});
