/**
 * A turn's payload on a real tmux pane running the stand-in agent (no session record: the
 * reply comes from the screen): `runTurn`, `GET /v1/terminals/{id}/turns/{turnId}` (running,
 * ended, unknown, no longer kept), `send --wait --print`, and the MCP `send_prompt` result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { embeddedBackend } from '../../src/mcp/backend.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { ProfileFactory } from '../../src/profiles/types.js';
import { TurnPayload } from '../../src/schemas/turn-payload.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

/** The stand-in's profile, its spinner lines chrome the projection leaves out (as a CLI's). */
const profile: ProfileFactory = (version) => {
  const base = standInProfile(version);
  return {
    ...base,
    parse: (screen) => {
      const r = base.parse(screen);
      const projectionText = r.surface.projectionText
        .split('\n')
        .filter((l) => !l.startsWith('⠋ working'))
        .join('\n');
      return { ...r, surface: { ...r.surface, projectionText } };
    },
  };
};

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

describe('turn payloads on a live pane', () => {
  let dir: string;
  let agent: AgentSession;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let base: string;
  const ready = () =>
    firstValueFrom(
      sup.state$('p1').pipe(
        filter((s) => s.readiness.status === 'ready' && s.turn.current === null),
        timeout(15_000),
      ),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-payload-'));
    agent = await startAgentSession({
      cwd: dir,
      socketName: `payload-turns-${process.pid}`,
      env: { STAND_IN_WORK_MS: '1200' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.2 },
      profiles: { stand_in: profile },
    });
    await sup.attach({ target: agent.target, id: 'p1', tool: 'stand_in' });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await ready();
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the route answers a running turn at once with ended:false, then its reply from the screen', async () => {
    const post = await fetch(`${base}/v1/terminals/p1/input`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'first prompt' }),
    });
    const { turnId } = (await post.json()) as { turnId: string };
    const t0 = Date.now();
    const running = await fetch(`${base}/v1/terminals/p1/turns/${turnId}`);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(running.status).toBe(200);
    const early = TurnPayload.parse(await running.json());
    expect(early).toMatchObject({
      terminalId: 'p1',
      turnId,
      ended: false,
      result: null,
      reply: null,
    });
    // With timeoutSeconds the route waits, and its answer carries the payload.
    const waited = await fetch(`${base}/v1/terminals/p1/turns/${turnId}?timeoutSeconds=30`);
    const w = (await waited.json()) as { result: string; payload: unknown };
    expect(w.result).toBe('completed');
    const payload = TurnPayload.parse(w.payload);
    expect(payload).toMatchObject({
      turnId,
      source: 'explicit_input',
      ended: true,
      result: 'success',
      reply: { text: '● reply 1: first prompt', source: 'screen', truncated: false },
      evidence: { witness: null, record: null },
    });
    expect(payload.timing.durationMs).toBeGreaterThanOrEqual(1000);
    const again = await fetch(`${base}/v1/terminals/p1/turns/${turnId}`);
    expect(TurnPayload.parse(await again.json())).toEqual(payload);
    // The state and the journal's records never carry it.
    expect(JSON.stringify(sup.get('p1'))).not.toContain('reply 1');
    expect(JSON.stringify(sup.journal.read(0))).not.toContain('reply 1');
  }, 60_000);

  it('404 for a turn the terminal never had, and for an unknown terminal', async () => {
    const r = await fetch(`${base}/v1/terminals/p1/turns/turn-999`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({
      error: { code: 'unknown_turn', message: expect.stringMatching(/has no turn turn-999/) },
    });
    const t = await fetch(`${base}/v1/terminals/nope/turns/turn-1`);
    expect(t.status).toBe(404);
    expect(((await t.json()) as { error: { code: string } }).error.code).toBe('unknown_terminal');
  });

  it('runTurn answers the payload; send --wait --print prints only the reply', async () => {
    await ready();
    const result = await sup.runTurn('p1', 'second prompt', { timeoutMs: 30_000 });
    expect(result.payload).toMatchObject({
      turnId: result.turnId,
      result: 'success',
      reply: { text: '● reply 2: second prompt', source: 'screen' },
    });
    await ready();
    const printed = await cli('send', 'p1', 'third prompt', '--wait', '--print', '--url', base);
    expect(printed.code).toBe(0);
    expect(printed.out).toBe('● reply 3: third prompt\n');
    expect(printed.err).toMatch(/^turn-\d+\nturn-\d+ success\n.*reply from the screen/m);
    const usage = await cli('send', 'p1', 'x', '--print', '--url', base);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--print: only with --wait/);
  }, 60_000);

  it('the MCP send_prompt result carries the reply', async () => {
    await ready();
    const mcp = createMcpServer(
      embeddedBackend(sup, 'a test supervisor', { onClose: async () => {} }),
      '0.0.0-test',
      {
        progressMs: 500,
      },
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'paneward-test', version: '0' });
    await Promise.all([mcp.connect(b), client.connect(a)]);
    try {
      const r = await client.callTool({
        name: 'send_prompt',
        arguments: { terminal: 'p1', prompt: 'fourth prompt', timeoutSeconds: 30 },
      });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({
        outcome: 'success',
        reply: { text: '● reply 4: fourth prompt', source: 'screen', truncated: false },
      });
      const text = (r.content as Array<{ type: string; text: string }>)[0]!.text;
      expect(text).toMatch(/The agent's reply \(from the screen\):\n● reply 4: fourth prompt/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('keeps the latest 20 turns: an older one is 404 "no longer kept"', async () => {
    // Turns 1-4 ran above; 17 more push turn-1 out.
    for (let n = 0; n < 17; n += 1) {
      await ready();
      await sup.runTurn('p1', `filler ${n}`, { timeoutMs: 30_000 });
    }
    const r = await fetch(`${base}/v1/terminals/p1/turns/turn-1`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({
      error: { code: 'unknown_turn', message: expect.stringMatching(/no longer kept/) },
    });
    const kept = await fetch(`${base}/v1/terminals/p1/turns/turn-2`);
    expect(kept.status).toBe(200);
  }, 120_000);
});
