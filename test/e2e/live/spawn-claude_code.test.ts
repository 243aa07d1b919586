/**
 * spawn, restart on failure and stop with the real Claude Code, offline against the loopback
 * model server, on a tmux server of the test's own: paneward starts the CLI in a window of its
 * own, answers once it is ready, takes a prompt to a real outcome, starts it again (resuming)
 * after a SIGKILL, gives up on a CLI that keeps dying, and ends it with its own `/exit`.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { isPanewardError, type PanewardError } from '../../../src/errors.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { uniqueSocketName } from '../harness/session.js';

const SCRATCH = resolve('.tmp/e2e-spawn-claude');
const missing = !existsSync(CLAUDE_CODE_BIN);

describe.skipIf(missing && !process.env.CI)('spawn with the real Claude Code', () => {
  const socketName = uniqueSocketName('spawn-e2e');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args], { reject: false });
  let model: FakeModelServer;
  let sup: Supervisor;
  let env: Record<string, string>;
  let cwd: string;

  beforeAll(async () => {
    if (missing) throw new Error(`Claude Code is not installed at ${CLAUDE_CODE_BIN}`);
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: join(SCRATCH, 'work'),
      baseUrl: model.url,
    });
    cwd = launch.cwd;
    // The CLI is found on the PATH it is given (tmux looks commands up on its own PATH).
    env = { ...launch.env, PATH: `${resolve(CLAUDE_CODE_BIN, '..')}:${launch.env.PATH}` };
    // A server with no user configuration; paneward opens its own session in it.
    await execa('tmux', ['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'base']);
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } });
  }, 60_000);

  afterAll(async () => {
    await sup?.stop();
    await tmux('kill-server');
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 30_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));
  const panePid = async (pane: string) =>
    Number((await tmux('display-message', '-p', '-t', pane, '#{pane_pid}')).stdout.trim());

  let id = '';
  let pane = '';

  it('starts the CLI in a window of its own and answers once it is ready', async () => {
    const started = Date.now();
    const r = await sup.spawn({
      tool: 'claude_code',
      cwd,
      session: 'agents',
      name: 'claude one',
      env,
      restart: 'on-failure',
      restartLimits: { initialSeconds: 1, maxSeconds: 4, limit: 3, windowSeconds: 600 },
    });
    id = r.terminalId;
    pane = r.spawned.paneId;
    console.log(`spawn → ready in ${Date.now() - started} ms`);
    expect(id).toBe('agents-claude-one');
    expect(sup.get(id).readiness.status).toBe('ready');
    expect(r.spawned.argv[0]).toBe(resolve(CLAUDE_CODE_BIN));
    expect(r.spawned.envNames).toContain('ANTHROPIC_BASE_URL');
    // No environment value is told back.
    expect(JSON.stringify(r.spawned)).not.toContain(model.url);
    // The watchdog applies to a terminal paneward started: the default budget.
    expect(sup.get(id).watchdog).toMatchObject({ state: 'armed', budgetSeconds: 14_400 });
    const w = await tmux('display-message', '-p', '-t', pane, '#{session_name}|#{window_name}');
    expect(w.stdout.trim()).toBe('agents|claude one');
    // The CLI is the pane's own process: no shell in between.
    const comm = await execa('ps', ['-o', 'comm=', '-p', String(await panePid(pane))]);
    expect(comm.stdout.trim()).not.toMatch(/^(ba|da)?sh$/);
  }, 90_000);

  it('takes a prompt to its real outcome', async () => {
    model.enqueue({ text: 'Hello from a spawned session.', chunkDelayMs: 40 });
    const result = await sup.runTurn(id, 'Say hello', { timeoutMs: 60_000 });
    expect(result.result).toBe('completed');
    expect(result.lastTurn.result).toBe('success');
  }, 90_000);

  it('starts it again with --continue after kill -9, recorded, and it is ready again', async () => {
    const before = await panePid(pane);
    process.kill(before, 'SIGKILL');
    const killedAt = Date.now();
    await until(id, (s) => s.readiness.status !== 'ready', 15_000);
    await until(
      id,
      (s) => s.readiness.status === 'ready' && sup.spawnedOf(id)?.restart.restarts === 1,
      45_000,
    );
    console.log(`SIGKILL → ready again in ${Date.now() - killedAt} ms`);
    expect(await panePid(pane)).not.toBe(before);
    const spawned = sup.spawnedOf(id)!;
    expect(spawned.restart.lastExit?.signal).toBe('SIGKILL');
    expect(spawned.restart.gaveUp).toBeNull();
    const cmdline = (await execa('ps', ['-o', 'args=', '-p', String(await panePid(pane))])).stdout;
    expect(cmdline).toContain('--continue');
    const rec = sup.history(id).find((x) => x.kind === 'terminal.respawned');
    expect(rec).toMatchObject({ attempt: 1, signal: 'SIGKILL', resumed: true, delaySeconds: 1 });
  }, 90_000);

  it('stop types /exit, the CLI ends by it, and the window goes', async () => {
    const answer = await sup.stopTerminal({ id });
    expect(answer).toEqual({ ok: true, ended: 'exit_command', worktreeRemoved: null });
    const panes = await tmux('list-panes', '-a', '-F', '#{pane_id}');
    expect(panes.stdout.split('\n')).not.toContain(pane);
    expect(sup.ids()).not.toContain(id);
  }, 60_000);

  it('a clean exit (the user types /exit) is no failure: nothing is started again', async () => {
    const r = await sup.spawn({
      tool: 'claude_code',
      cwd,
      session: 'agents',
      name: 'clean',
      env,
      restart: 'on-failure',
      restartLimits: { initialSeconds: 0.5, maxSeconds: 1, limit: 3, windowSeconds: 600 },
    });
    const p = r.spawned.paneId;
    await tmux('send-keys', '-t', p, '-l', '/exit');
    await new Promise((res) => setTimeout(res, 400));
    await tmux('send-keys', '-t', p, 'Enter');
    await until(r.terminalId, () => sup.spawnedOf(r.terminalId)?.restart.lastExit != null, 20_000);
    // Longer than the first backoff: a restart would have happened by now.
    await new Promise((res) => setTimeout(res, 2500));
    const s = sup.spawnedOf(r.terminalId)!;
    expect(s.restart.lastExit).toMatchObject({ status: 0, signal: null });
    expect(s.restart.restarts).toBe(0);
    expect(s.restart.gaveUp).toBeNull();
    expect((await tmux('display-message', '-p', '-t', p, '#{pane_dead}')).stdout.trim()).toBe('1');
    expect(sup.history(r.terminalId).map((x) => x.kind)).not.toContain('terminal.respawned');
    expect((await sup.stopTerminal({ id: r.terminalId })).ended).toBe('already_gone');
  }, 60_000);

  it('a CLI that keeps dying is started again up to its limit, then gives up, clearly', async () => {
    let error: PanewardError | null = null;
    await sup
      .spawn({
        tool: 'claude_code',
        cwd,
        session: 'agents',
        name: 'dies',
        env,
        args: ['--paneward-no-such-option'],
        restart: 'on-failure',
        restartLimits: { initialSeconds: 0.5, maxSeconds: 1, limit: 2, windowSeconds: 600 },
      })
      .catch((e: unknown) => {
        if (isPanewardError(e)) error = e;
        else throw e;
      });
    const e = error as PanewardError | null;
    expect(e?.code).toBe('not_ready');
    expect(e?.message).toMatch(/exited with status 1 before it was ready.*restarts gave up/);
    const dies = sup.spawnedOf('agents-dies')!;
    expect(dies.restart.restarts).toBe(2);
    expect(dies.restart.gaveUp?.reason).toMatch(/died 3 times .*status 1.*limit of 2/);
    expect(sup.get('agents-dies').diagnostics.availability).toBe('tui_down');
    const kinds = sup.history('agents-dies').map((x) => x.kind);
    expect(kinds.filter((k) => k === 'terminal.respawned')).toHaveLength(2);
    expect(kinds).toContain('terminal.respawn_gave_up');
    // Its window stays (its screen says why) until it is stopped: nothing to type, it is gone.
    const answer = await sup.stopTerminal({ id: 'agents-dies' });
    expect(answer.ended).toBe('already_gone');
  }, 90_000);

  it('refuses to stop a pane it did not start, unless forced', async () => {
    const other = await sup.attach({ target: 'base:0.0', tool: 'claude_code', id: 'observed' });
    await expect(sup.stopTerminal({ id: other })).rejects.toMatchObject({ code: 'refused' });
    sup.detach(other);
  });
});
