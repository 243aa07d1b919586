import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const TOKEN = 'a-token-of-at-least-sixteen-characters';

/**
 * `POST /v1/terminals/{id}/observations` on a real pane: an observer outside the service tells
 * how the open turn ended, and the terminal takes it as a witness (docs/witness.md).
 */
describe('POST /v1/terminals/{id}/observations, on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    http.app.request(`/v1/terminals/${id}/observations`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const errorOf = async (r: Response) =>
    (
      (await r.json()) as {
        error: { code: string; message: string; details: Record<string, unknown> | null };
      }
    ).error;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-observation-route-'));
    agent = await startAgentSession({
      cwd: dir,
      // A long turn: the screen shows work while the observer's ending comes in.
      env: { STAND_IN_WORK_MS: '2500' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 2, stabilitySeconds: 3 },
      profiles: { stand_in: standInProfile },
    });
    await sup.attach({ target: agent.target, tool: 'stand_in', id: 's1' });
    await firstValueFrom(
      sup.state$('s1').pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(15_000),
      ),
    );
    http = createHttpApp(sup, { token: TOKEN });
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an ending for a turn that is not the open one with 409 and why, and types nothing', async () => {
    const before = await agent.capture();
    const none = await post('s1', { observer: 'ci', turnId: 'turn-1', reason: 'success' });
    expect(none.status).toBe(409);
    const e = await errorOf(none);
    expect(e.code).toBe('refused');
    expect(e.message).toContain('`turnId`');
    expect(e.message).toContain('no open turn');
    expect(e.details).toMatchObject({ reason: 'not_current_turn', currentTurnId: null });
    await new Promise((res) => setTimeout(res, 300));
    expect(await agent.capture()).toBe(before);
  });

  it('takes an ending of the open turn: under the default authority it wins after the window, journaled as the observer’s', async () => {
    const turnId = await sup.submit('s1', 'a prompt an outside observer judges');
    await firstValueFrom(
      sup.state$('s1').pipe(
        filter((s) => s.completion?.turnId === turnId && s.completion.sawWorking),
        timeout(10_000),
      ),
    );
    const wrong = await post('s1', { observer: 'ci', turnId: 'turn-999', reason: 'success' });
    expect(wrong.status).toBe(409);
    expect((await errorOf(wrong)).details).toMatchObject({
      reason: 'not_current_turn',
      currentTurnId: turnId,
    });
    const r = await post('s1', {
      observer: 'ci',
      turnId,
      reason: 'known_failure',
      kind: 'tests_failed',
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ terminalId: 's1', turnId, taken: 'turn_ended' });
    const again = await post('s1', { observer: 'other', turnId, reason: 'success' });
    expect(await again.json()).toEqual({
      terminalId: 's1',
      turnId,
      taken: 'ignored',
      why: 'already_ended',
    });
    const ended = await firstValueFrom(
      sup.state$('s1').pipe(
        filter((s) => s.lastTurn.turnId === turnId && s.lastTurn.result !== 'none'),
        timeout(15_000),
      ),
    );
    // The screen had not shown the end within the window: the observer's failure won.
    expect(ended.lastTurn).toMatchObject({ result: 'known_failure', witness: 'observer' });
    await sup.journal.flush();
    const records = sup.history('s1');
    expect(records.find((x) => x.kind === 'turn.ended' && x.turnId === turnId)).toMatchObject({
      witness: 'observer',
      observer: { name: 'ci' },
    });
    // A turn that has ended takes no more endings.
    const late = await post('s1', { observer: 'ci', turnId, reason: 'success' });
    expect(late.status).toBe(409);
  }, 60_000);

  it('refuses bad input naming the field', async () => {
    for (const [body, field] of [
      [{ turnId: 'turn-1', reason: 'success' }, 'observer'],
      [{ observer: '1ci', turnId: 'turn-1', reason: 'success' }, 'observer'],
      [{ observer: 'ci', turnId: 'turn 1', reason: 'success' }, 'turnId'],
      [{ observer: 'ci', turnId: 'turn-1', reason: 'done' }, 'reason'],
      [{ observer: 'ci', turnId: 'turn-1', reason: 'known_failure' }, 'kind'],
      [{ observer: 'ci', turnId: 'turn-1', reason: 'success', kind: 'x' }, 'kind'],
      [{ observer: 'ci', turnId: 'turn-1', reason: 'success', text: 'the reply' }, 'text'],
    ] as const) {
      const r = await post('s1', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const e = await errorOf(r);
      expect(e.code).toBe('invalid_input');
      expect(e.message, JSON.stringify(body)).toContain(field);
    }
    const unknown = await post('nope', { observer: 'ci', turnId: 'turn-1', reason: 'success' });
    expect(unknown.status).toBe(404);
  });

  it('has the protections of every route that acts: token, Host, Origin, JSON, a small body', async () => {
    const body = { observer: 'ci', turnId: 'turn-1', reason: 'success' };
    expect((await post('s1', body, { authorization: '' })).status).toBe(401);
    expect((await post('s1', body, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post('s1', body, { host: 'evil.example' })).status).toBe(403);
    expect((await post('s1', body, { 'content-type': 'text/plain' })).status).toBe(403);
    expect((await post('s1', { ...body, pad: 'x'.repeat(5000) })).status).toBe(413);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await http.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.paths['/v1/terminals/{id}/observations']?.post).toBeDefined();
  });
});
