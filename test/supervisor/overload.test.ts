/**
 * paneward's own overload is paneward's: with real tmux and stand-in agent panes, the
 * supervisor's event loop is held (as a busy host or a burst of work would) for much longer
 * than the poll interval. The observer reports `observer_lagging`; no terminal turns `error`,
 * `stalled` or loses its state because of it; afterwards it catches up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { SourceHealth } from '../../src/observe/frame-source.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

const PANES = 6;

describe.each(['control', 'polling'] as const)('overload on the %s source', (source) => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-overload-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    for (let i = 1; i < PANES; i++) {
      await execa('tmux', [
        '-L',
        agent.socketName,
        'new-window',
        '-d',
        '-t',
        'pw',
        process.execPath,
        STAND_IN_AGENT,
      ]);
    }
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      source,
      config: {
        pollIntervalSeconds: 0.1,
        settleSeconds: 0.3,
        stabilitySeconds: 0.3,
        stallTimeoutSeconds: 2,
      },
      profiles: { stand_in: standInProfile },
    });
    for (let i = 0; i < PANES; i++) {
      const id = await sup.attach({ target: `pw:${i}.0`, tool: 'stand_in', id: `p${i}` });
      try {
        await firstValueFrom(
          sup.state$(id).pipe(
            filter((s) => s.readiness.status === 'ready'),
            timeout(15_000),
          ),
        );
      } catch (error) {
        const screen = await execa(
          'tmux',
          ['-L', agent.socketName, 'capture-pane', '-p', '-t', `pw:${i}.0`],
          { reject: false },
        );
        throw new Error(
          `${id} not ready in 15 s: ${JSON.stringify(sup.get(id))}\nobserver: ${JSON.stringify(sup.observer())}\nscreen:\n${screen.stdout}`,
          { cause: error },
        );
      }
    }
  }, 60_000);

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says it is lagging, keeps every terminal as it was, and catches up', async () => {
    const health: SourceHealth[] = [];
    const states: TerminalState[] = [];
    const subs = [
      sup.observer$.subscribe((h) => health.push(h)),
      ...sup.ids().map((id) => sup.state$(id).subscribe((s) => states.push(s))),
    ];
    // Hold the event loop for 3 s, three times, with a breath between (a stalled supervisor,
    // 30 intervals long each time, longer than the stall timeout).
    for (let round = 0; round < 3; round++) {
      const until = Date.now() + 3000;
      while (Date.now() < until) {
        // busy
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    await firstValueFrom(
      sup.observer$.pipe(
        filter((h) => !h.lagging),
        timeout(10_000),
      ),
    );
    await new Promise((r) => setTimeout(r, 1000));
    for (const s of subs) s.unsubscribe();

    expect(
      health.some((h) => h.lagging && h.lagMs > 1000),
      'observer_lagging reported',
    ).toBe(true);
    const bad = states.filter(
      (s) =>
        s.diagnostics.availability === 'error' ||
        s.readiness.status === 'stalled' ||
        s.readiness.status === 'unknown',
    );
    expect(
      bad.map(
        (s) =>
          `${s.terminalId}: ${s.diagnostics.availability}/${s.readiness.status} ${s.diagnostics.error?.message ?? ''}`,
      ),
    ).toEqual([]);
    for (const id of sup.ids()) expect(sup.get(id).readiness.status).toBe('ready');
  }, 60_000);
});
