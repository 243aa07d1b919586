import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';
import { until } from './internal/until-state.js';

describe('the gate with real tmux', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-gate-'));
    agent = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
  });

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two prompts sent at the same moment to a ready terminal: one turn, one refusal, every time', async () => {
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'c1' });
    for (let i = 0; i < 8; i++) {
      await until(sup, id, () => sup.operations(id).sendInput.allowed === 'yes');
      const both = await Promise.allSettled([
        sup.submit(id, `first ${i}`),
        sup.submit(id, `second ${i}`),
      ]);
      const accepted = both.filter((r) => r.status === 'fulfilled');
      const refused = both.filter((r) => r.status === 'rejected');
      expect(accepted, `try ${i}`).toHaveLength(1);
      expect(refused[0]!.reason).toMatchObject({ code: 'not_ready' });
      const turnId = (accepted[0] as PromiseFulfilledResult<string>).value;
      const done = await sup.waitForTurn(id, turnId, { timeoutMs: 15_000 });
      expect(done.lastTurn.result).toBe('success');
    }
    // The agent saw each accepted prompt as a prompt of its own: no two texts in one input.
    const screen = await agent.capture();
    expect(screen).not.toMatch(/first \d+second|second \d+first/);
  }, 120_000);

  it('interrupt with no turn running and resume of a session not blocked are refused', async () => {
    await until(sup, 'c1', () => sup.operations('c1').sendInput.allowed === 'yes');
    const before = await agent.capture();
    await expect(sup.interrupt('c1')).rejects.toMatchObject({
      code: 'refused',
      message: 'terminal c1 refuses interrupt: no turn is running',
    });
    await expect(sup.resume('c1')).rejects.toMatchObject({
      code: 'refused',
      details: { reason: 'the session is not blocked' },
    });
    await new Promise((r) => setTimeout(r, 300));
    // Nothing was typed: the stand-in echoes Ctrl-C at its prompt as `^C`.
    expect(await agent.capture()).toBe(before);
  });

  it('a pane marked as reading no input refuses prompts, forced or not, and says why', async () => {
    sup.refuseInput('c1', 'it plays a recording');
    expect(sup.operations('c1').sendInput).toEqual({
      allowed: 'no',
      reason: 'the pane reads no input: it plays a recording',
    });
    for (const force of [false, true]) {
      await expect(sup.submit('c1', 'hello', { force })).rejects.toMatchObject({
        code: 'not_ready',
        message: 'terminal c1 is not ready (the pane reads no input: it plays a recording)',
      });
    }
    sup.detach('c1');
  });

  it('terminal ids start with a letter or digit: `.` and `..` are refused naming `id`', async () => {
    for (const id of ['.', '..', '-x', '_y']) {
      await expect(sup.attach({ target: agent.target, tool: 'stand_in', id })).rejects.toThrow(
        /attach: field `id`/,
      );
    }
  });
});
