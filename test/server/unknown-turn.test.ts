/**
 * Waiting on a turn the terminal never had: 404 `unknown_turn` at once (the HTTP route, the
 * library, the command-line client and the MCP backends alike), never a wait that can only
 * time out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ClientError, EXIT } from '../../src/cli/client-api.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { embeddedBackend, failureOf, remoteBackend } from '../../src/mcp/backend.js';
import { adviceFor } from '../../src/mcp/replies.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

describe('waiting on a turn that does not exist', () => {
  let dir: string;
  let agent: AgentSession;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-unknown-turn-'));
    agent = await startAgentSession({
      cwd: dir,
      socketName: `hks-turn-${process.pid}`,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    await sup.attach({ target: agent.target, id: 'a1', tool: 'stand_in' });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 unknown_turn at once; a real turn is still waited on', async () => {
    const t0 = Date.now();
    const r = await fetch(`${base}/v1/terminals/a1/turns/turn-999?timeoutSeconds=30`);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({
      error: {
        code: 'unknown_turn',
        message:
          'waitForTurn: field `turnId`: terminal a1 has no turn turn-999 (not its current, last or a recent one)',
        details: { terminalId: 'a1', turnId: 'turn-999' },
      },
    });
    // An unknown terminal is still `unknown_terminal`.
    const t = await fetch(`${base}/v1/terminals/nope/turns/turn-1?timeoutSeconds=1`);
    expect(t.status).toBe(404);
    expect(((await t.json()) as { error: { code: string } }).error.code).toBe('unknown_terminal');
    // A turn it has: waited on, and answered by its outcome.
    await firstValueFrom(sup.state$('a1').pipe(filter((s) => s.readiness.status === 'ready')));
    const turnId = await sup.submit('a1', 'a real prompt');
    const w = await fetch(`${base}/v1/terminals/a1/turns/${turnId}?timeoutSeconds=30`);
    expect(w.status).toBe(200);
    expect(await w.json()).toMatchObject({ turnId, result: 'completed' });
    // Once it is over, still known: answered, not 404.
    const again = await fetch(`${base}/v1/terminals/a1/turns/${turnId}?timeoutSeconds=1`);
    expect(again.status).toBe(200);
  }, 60_000);

  it('the OpenAPI document says so, and still validates', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { responses?: Record<string, { description: string }> } }>;
    };
    expect(await validate(structuredClone(doc) as never)).toMatchObject({ valid: true });
    expect(
      doc.paths['/v1/terminals/{id}/turns/{turnId}']!.get!.responses!['404']!.description,
    ).toContain('`unknown_turn`');
  });

  it('the library, the client (exit 5) and both MCP backends say so', async () => {
    await expect(sup.waitForTurn('a1', 'turn-999', { timeoutMs: 30_000 })).rejects.toMatchObject({
      code: 'unknown_turn',
    });
    const api = new ApiClient({ url: base }, {});
    const e = await api.waitTurn('a1', 'turn-999', 30).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClientError);
    expect(e).toMatchObject({ exitCode: EXIT.notFound, code: 'unknown_turn' });
    expect((e as Error).message).toContain('terminal a1 has no turn turn-999');
    for (const backend of [embeddedBackend(sup, 'here'), remoteBackend(api)]) {
      const t0 = Date.now();
      const f = failureOf(
        await backend.wait('a1', 'turn-999', 30).catch((x: unknown) => x as Error),
      );
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(f.code).toBe('unknown_turn');
      expect(adviceFor(f, base)).toMatch(/turnId send_prompt answered/);
    }
  }, 60_000);
});
