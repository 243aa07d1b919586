import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

describe('POST /v1/terminals with chart settings, on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  const call = (body: unknown) =>
    http.app.request('/v1/terminals', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-chart-settings-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '800' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
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

  it('refuses settings out of bounds or in conflict, naming the field, and attaches nothing', async () => {
    for (const [config, field] of [
      [{ stallTimeoutSeconds: 1e9 }, 'config.stallTimeoutSeconds'],
      [{ stallMode: 'sometimes' }, 'config.stallMode'],
      [{ settleSeconds: -1 }, 'config.settleSeconds'],
      [{ stabilitySeconds: 7200 }, 'config.stabilitySeconds'],
      [{ staleActiveSeconds: 0.2 }, 'config.staleActiveSeconds'],
      [{ pollIntervalSeconds: 1 }, 'config.pollIntervalSeconds'],
    ] as const) {
      const r = await call({ target: agent.target, tool: 'stand_in', config });
      expect(r.status, JSON.stringify(config)).toBe(400);
      const e = ((await r.json()) as { error: { message: string } }).error;
      expect(e.message, JSON.stringify(config)).toContain(`\`${field}\``);
    }
    expect(sup.ids()).toEqual([]);
  });

  it("the terminal runs on its own settings: a 4 s stability window instead of the supervisor's 0.3 s", async () => {
    const r = await call({
      target: agent.target,
      tool: 'stand_in',
      id: 's1',
      config: { stabilitySeconds: 4 },
    });
    expect(r.status).toBe(201);
    const states: TerminalState[] = [];
    const sub = sup.state$('s1').subscribe((s) => states.push(s));
    try {
      const ready = await firstValueFrom(
        sup.state$('s1').pipe(
          filter((s) => s.readiness.status === 'ready'),
          timeout(15_000),
        ),
      );
      const stable = await firstValueFrom(
        sup.state$('s1').pipe(
          filter((s) => s.stability.stable),
          timeout(15_000),
        ),
      );
      // Stable only once the state had not changed for 4 s (0.3 s would be the supervisor's).
      expect(stable.stability.stableForSeconds).toBeGreaterThanOrEqual(4 - 1e-6);
      const lastChange = states.filter((s) => !s.stability.stable).at(-1)!;
      expect(stable.t - lastChange.t).toBeGreaterThanOrEqual(4 - 1e-6);
      expect(stable.t - ready.t).toBeGreaterThanOrEqual(4 - 1e-6);
    } finally {
      sub.unsubscribe();
    }
  }, 30_000);
});
