import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

describe('runTurn', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-runturn-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '600' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers with the turn's own outcome when the agent works again before its completion ends", async () => {
    // The success settles fast; the completion waits for a long stability window, long enough
    // for a prompt typed by hand to make a turn of its own and end it first.
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 4 },
      profiles: { stand_in: standInProfile },
    });
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'r1' });
    await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(15_000),
      ),
    );
    const running = sup.runTurn(id, 'the explicit prompt', { timeoutMs: 30_000 });
    const own = await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.lastTurn.source === 'explicit_input' && s.lastTurn.result === 'success'),
        timeout(15_000),
      ),
    );
    // Typed by hand into the pane: the next turn, inferred from the screen.
    await execa('tmux', ['-L', agent.socketName, 'send-keys', '-t', agent.target, '-l', 'by hand']);
    await execa('tmux', ['-L', agent.socketName, 'send-keys', '-t', agent.target, 'Enter']);
    const inferred = await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.lastTurn.source === 'surface_inference' && s.lastTurn.result === 'success'),
        timeout(15_000),
      ),
    );
    expect(inferred.lastTurn.turnId).not.toBe(own.lastTurn.turnId);
    const result = await running;
    expect(result.lastTurn).toEqual(own.lastTurn);
    expect(result.turnId).toBe(own.lastTurn.turnId);
    expect(sup.get(id).lastTurn.source).toBe('surface_inference');
  }, 60_000);
});
