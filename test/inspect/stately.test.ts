/**
 * Live inspection: the actor system relayed to Stately's inspector through the local bridge of
 * `@statelyai/inspect`, read back here as the inspector page would read it (a WebSocket client
 * of the bridge), with a real tmux pane. Pane text and prompts stay home unless asked for.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { startStatelyInspection, type StatelyInspection } from '../../src/inspect/stately.js';
import { stripPaneText } from '../../src/inspect/strip.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Seen {
  type: string;
  raw: string;
  actorId?: string;
}

describe('live inspection in Stately tooling', () => {
  let agent: AgentSession | undefined;
  let sup: Supervisor | undefined;
  let inspection: StatelyInspection | undefined;
  let dir = '';
  afterEach(async () => {
    await sup?.stop();
    inspection?.stop();
    await agent?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function run(paneText: boolean): Promise<Seen[]> {
    dir = mkdtempSync(join(tmpdir(), 'pw-inspect-'));
    const port = await freePort();
    inspection = await startStatelyInspection({ port, paneText });
    const seen: Seen[] = [];
    const page = new WebSocket(inspection.socketUrl);
    page.on('message', (data) => {
      const raw = String(data);
      const e = JSON.parse(raw) as { type: string; sessionId?: string; actorRef?: { id?: string } };
      seen.push({ type: e.type, raw, ...(e.sessionId ? { actorId: e.sessionId } : {}) });
    });
    await new Promise((r) => page.once('open', r));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      inspect: inspection.inspect,
      profiles: { stand_in: standInProfile },
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
    });
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'inspected' });
    await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(15_000),
      ),
    );
    await sup.runTurn(id, 'a secret prompt', { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 500));
    page.close();
    return seen;
  }

  it('relays the actor tree, every chart of the terminal, and strips pane text and prompts', async () => {
    const seen = await run(false);
    const actors = seen.filter((e) => e.type === '@xstate.actor').map((e) => e.raw);
    for (const chart of [
      'readiness',
      'completion',
      'turnPhase',
      'lastTurn',
      'diagnostics',
      'watchdog',
    ]) {
      expect(
        actors.some((a) => a.includes(`"${chart}`)),
        chart,
      ).toBe(true);
    }
    expect(seen.some((e) => e.type === '@xstate.snapshot')).toBe(true);
    expect(seen.some((e) => e.type === '@xstate.event')).toBe(true);
    const all = seen.map((e) => e.raw).join('\n');
    for (const secret of ['a secret prompt', 'stand-in agent ready']) {
      const at = all.indexOf(secret);
      expect(at < 0 ? '' : all.slice(Math.max(0, at - 200), at + 40)).toBe('');
    }
    expect(all).not.toContain('stand-in agent ready');
    expect(all).toMatch(/‹\d+ chars›/);
  }, 60_000);

  it('sends them when asked to (--inspect-pane-text)', async () => {
    const all = (await run(true)).map((e) => e.raw).join('\n');
    expect(all).toContain('a secret prompt');
  }, 60_000);

  it('refuses a port in use, naming the field, and starts nothing', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, () => r()));
    const port = (s.address() as { port: number }).port;
    await expect(startStatelyInspection({ port })).rejects.toThrow(
      /field `inspect`: port \d+ is in use/,
    );
    s.close();
  });
});

describe('stripPaneText', () => {
  it('replaces pane-text strings by their length, deep, and leaves the rest and non-plain objects alone', () => {
    class Ref {
      text = 'kept: not plain';
    }
    const ref = new Ref();
    const cyclic: Record<string, unknown> = { screen: 'abc' };
    cyclic.self = cyclic;
    const out = stripPaneText({
      type: 'frame',
      projection: 'hello',
      nested: [{ text: 'ab', n: 1 }],
      ref,
      cyclic,
      baseline: 42,
    });
    expect(out).toMatchObject({
      type: 'frame',
      projection: '‹5 chars›',
      nested: [{ text: '‹2 chars›', n: 1 }],
      baseline: 42,
    });
    expect(out.ref).toBe(ref);
    const long = 'x'.repeat(81);
    expect(
      stripPaneText({
        settling: '["one line"]',
        other: long,
        two: 'a\nb',
        definition: long,
        state: 'ready',
      }),
    ).toEqual({
      settling: '‹12 chars›',
      other: '‹81 chars›',
      two: '‹3 chars›',
      definition: long,
      state: 'ready',
    });
    expect((out.cyclic as { screen: string }).screen).toBe('‹3 chars›');
  });
});
