import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { MAX_BUDGET_SECONDS } from '../../src/internal/bounds.js';
import { Journal } from '../../src/journal/journal.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp } from '../../src/server/app.js';
import { runWatch } from '../../src/cli/watch.js';
import { startServe } from '../../src/cli/serve.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const until = (sup: Supervisor, id: string, pred: (s: TerminalState) => boolean, ms = 15_000) =>
  firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

describe('numbers from outside are bounded; long budgets never fire early', () => {
  let agent: AgentSession;
  let dir: string;
  const open = (dataDir: string): Supervisor =>
    createSupervisor({
      socketName: agent.socketName,
      dataDir,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-bounds-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('POST /v1/terminals with a budget of 1e308 answers 400 naming the field, and the service keeps serving', async () => {
    const sup = open(join(dir, 'http'));
    const http = createHttpApp(sup);
    try {
      const res = await http.app.request('/v1/terminals', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"target": "${agent.target}", "tool": "stand_in", "sessionWallClockSeconds": 1e308}`,
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.message).toMatch(/sessionWallClockSeconds/);
      expect(body.error.message).toMatch(new RegExp(String(MAX_BUDGET_SECONDS)));
      expect(sup.ids()).toEqual([]);
      // Still serving: a budget in range attaches.
      const ok = await http.app.request('/v1/terminals', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          target: agent.target,
          tool: 'stand_in',
          sessionWallClockSeconds: MAX_BUDGET_SECONDS,
        }),
      });
      expect(ok.status).toBe(201);
      expect((await http.app.request('/healthz')).status).toBe(200);
    } finally {
      http.close();
      await sup.stop();
    }
  });

  it('a budget of 2200000 s (past 2^31 ms) does not fire: no cancel, the session stays running', async () => {
    const sup = open(join(dir, 'long'));
    try {
      const id = await sup.attach({
        target: agent.target,
        tool: 'stand_in',
        sessionWallClockSeconds: 2_200_000,
      });
      await until(sup, id, (s) => s.readiness.status === 'ready');
      await new Promise((r) => setTimeout(r, 1500));
      await sup.journal.flush();
      const kinds = sup.journal.read(0, id).map((r) => r.kind);
      expect(kinds).toContain('watchdog.window');
      expect(kinds).not.toContain('watchdog.cancel');
      expect(sup.get(id).session.status).not.toBe('blocked');
      expect(sup.journal.read(0, id).find((r) => r.kind === 'watchdog.window')).toMatchObject({
        budgetSeconds: 2_200_000,
      });
    } finally {
      await sup.stop();
    }
  });

  it('a journaled attach with a budget of 1e308 (an older version took it) is clamped on restart, and the supervisor keeps serving', async () => {
    const dataDir = join(dir, 'older');
    const older = new Journal({ dataDir });
    await older.append({
      kind: 'terminal.attached',
      terminalId: 'old1',
      target: agent.target,
      tool: 'stand_in',
      toolVersion: null,
      watchdogBudgetSeconds: 1e308,
      readopted: false,
    } as Parameters<Journal['append']>[0]);
    await older.close();
    const sup = open(dataDir);
    try {
      expect(sup.ids()).toEqual(['old1']);
      await until(sup, 'old1', (s) => s.readiness.status === 'ready');
      await new Promise((r) => setTimeout(r, 1000));
      await sup.journal.flush();
      const records = sup.journal.read(0, 'old1');
      expect(records.map((r) => r.kind)).not.toContain('watchdog.cancel');
      const readopted = records.filter((r) => r.kind === 'terminal.attached').at(-1);
      expect(readopted).toMatchObject({
        readopted: true,
        watchdogBudgetSeconds: MAX_BUDGET_SECONDS,
      });
      expect(sup.get('old1').session.status).not.toBe('blocked');
    } finally {
      await sup.stop();
    }
  });

  it('the library refuses numbers past their bounds, naming the field', async () => {
    for (const [config, field] of [
      [{ pollIntervalSeconds: 1e308 }, 'pollIntervalSeconds'],
      [{ stallTimeoutSeconds: 1e12 }, 'stallTimeoutSeconds'],
      [{ settleSeconds: 1e308 }, 'settleSeconds'],
      [{ sessionWallClockSeconds: 1e308 }, 'sessionWallClockSeconds'],
    ] as const) {
      expect(() =>
        createSupervisor({ socketName: agent.socketName, dataDir: null, config }),
      ).toThrow(new RegExp(field));
    }
    expect(() =>
      createSupervisor({
        socketName: agent.socketName,
        dataDir: null,
        restartBackoff: { initialSeconds: 1, maxSeconds: 1e308 },
      }),
    ).toThrow(/maxSeconds/);
    const sup = open(join(dir, 'lib'));
    try {
      await expect(
        sup.attach({ target: agent.target, tool: 'stand_in', sessionWallClockSeconds: 1e308 }),
      ).rejects.toThrow(/field `sessionWallClockSeconds`/);
      expect(sup.ids()).toEqual([]);
      expect(() => sup.discoverContinuously(1e308)).toThrow(/field `intervalSeconds`/);
    } finally {
      await sup.stop();
    }
  });

  it('watch --session-budget 1e308 and serve --session-budget 1e308 are refused naming the option', async () => {
    await expect(
      runWatch({ targets: [agent.target], sessionBudget: '1e308', socketName: agent.socketName }),
    ).rejects.toThrow(/sessionBudget.*--session-budget must be at most 2592000/);
    await expect(
      startServe({
        sessionBudget: '1e308',
        port: '0',
        dataDir: join(dir, 'serve'),
        discover: false,
      }),
    ).rejects.toThrow(/sessionBudget.*--session-budget must be at most 2592000/);
  });
});
