/**
 * Turn ids count per terminal: each terminal's first turn is `turn-1`, whatever other terminals
 * did, and a supervisor started again on the same data directory goes on from the journal, never
 * handing an id out twice (also to a terminal detached and attached again under its old id).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

describe('turn ids', () => {
  let agent: AgentSession;
  let dir: string;
  let second: string;
  let sup: Supervisor | undefined;

  const start = () =>
    createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.2 },
      profiles: { stand_in: standInProfile },
    });
  const ready = (s: Supervisor, id: string) =>
    firstValueFrom(
      s.state$(id).pipe(
        filter((v) => v.readiness.status === 'ready' && v.turn.phase === 'ready'),
        timeout(15_000),
      ),
    );
  const turn = async (s: Supervisor, id: string) => {
    await ready(s, id);
    const r = await s.runTurn(id, `a prompt for ${id}`, { timeoutMs: 30_000 });
    expect(r.lastTurn.result).toBe('success');
    return r.turnId;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-turn-ids-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    const opened = await execa('tmux', [
      ...['-L', agent.socketName, 'new-window', '-d', '-P', '-F', '#{pane_id}'],
      ...['env', `STAND_IN_WORK_MS=300`, process.execPath, STAND_IN_AGENT],
    ]);
    second = opened.stdout.trim();
  });

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('count per terminal, and go on after a restart from the journal', async () => {
    sup = start();
    const a = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'a' });
    const b = await sup.attach({ target: second, tool: 'stand_in', id: 'b' });
    expect(await turn(sup, a)).toBe('turn-1');
    expect(await turn(sup, a)).toBe('turn-2');
    expect(await turn(sup, b)).toBe('turn-1');
    await sup.stop();

    // Started again on the same data directory: both terminals are re-attached from the journal.
    sup = start();
    expect(sup.ids().sort()).toEqual(['a', 'b']);
    expect(await turn(sup, a)).toBe('turn-3');
    expect(await turn(sup, b)).toBe('turn-2');

    // Detached and attached again under its old id: its ids are not handed out again.
    sup.detach(b);
    await sup.attach({ target: second, tool: 'stand_in', id: 'b' });
    expect(await turn(sup, b)).toBe('turn-3');
  }, 120_000);
});
