/**
 * The newcomer's path from the command line, with the real Claude Code offline: `paneward serve`,
 * two agents started with `paneward spawn`, a prompt to each with `send --wait` and its outcome,
 * `paneward stop`; and `--worktree`, whose removal asks before it throws away changes. Nobody
 * touches tmux by hand.
 */
import { spawn as run, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { uniqueSocketName } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-spawn-cli');
const missing = !existsSync(CLAUDE_CODE_BIN);

describe.skipIf(missing && !process.env.CI)('paneward spawn / send --wait / stop', () => {
  const socketName = uniqueSocketName('spawn-cli');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args], { reject: false });
  let model: FakeModelServer;
  let serve: ChildProcess;
  let url = '';
  let envArgs: string[] = [];
  let work = '';
  let home = '';

  const cli = (...args: string[]) =>
    execa(process.execPath, [BIN, ...args, '--url', url], { reject: false, stdin: 'ignore' });

  beforeAll(async () => {
    if (missing) throw new Error(`Claude Code is not installed at ${CLAUDE_CODE_BIN}`);
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    home = join(SCRATCH, 'home');
    work = join(SCRATCH, 'repo');
    const launch = prepareClaudeCode({ home, cwd: work, baseUrl: model.url });
    const env = { ...launch.env, PATH: `${resolve(CLAUDE_CODE_BIN, '..')}:${launch.env.PATH}` };
    envArgs = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    await execa('git', ['init', '-q', '-b', 'main', work]);
    await execa('git', [
      '-C',
      work,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'start',
    ]);
    await execa('tmux', ['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'base']);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    serve = run(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        String(port),
        '-L',
        socketName,
        '--data-dir',
        join(SCRATCH, 'data'),
        '--no-discover',
        '--poll-interval',
        '0.25',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 150; i++) {
      if (
        await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  afterAll(async () => {
    serve?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await tmux('kill-server');
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
    rmSync(`${work}.worktrees`, { recursive: true, force: true });
  });

  it('starts two agents, sends each a prompt, prints the outcomes, and stops them', async () => {
    const one = await cli('spawn', 'claude_code', '--cwd', work, '--name', 'one', ...envArgs);
    expect(one.stderr).toBe('');
    expect(one.stdout).toMatch(/^paneward-one %\d+ ready$/);
    const two = await cli('spawn', 'claude_code', '--cwd', work, '--name', 'two', ...envArgs);
    expect(two.stdout).toMatch(/^paneward-two %\d+ ready$/);
    for (const [id, reply] of [
      ['paneward-one', 'First agent here.'],
      ['paneward-two', 'Second agent here.'],
    ] as const) {
      model.enqueue({ text: reply, chunkDelayMs: 40 });
      const sent = await cli('send', id, 'Who are you?', '--wait', '--timeout', '60');
      expect(sent.exitCode, sent.stderr).toBe(0);
      expect(sent.stdout).toMatch(/^turn-\d+\nturn-\d+ success$/);
    }
    const ls = await cli('ls');
    expect(ls.stdout).toContain('paneward-one');
    for (const id of ['paneward-one', 'paneward-two']) {
      const stopped = await cli('stop', id);
      expect(stopped.stdout).toBe(`${id} exit_command`);
    }
    const windows = await tmux('list-windows', '-a', '-F', '#{session_name}:#{window_name}');
    expect(windows.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^base:/)]);
  }, 180_000);

  it('runs one in a new worktree, and asks before removing one with changes', async () => {
    // A folder outside any repository (the scratch folder is inside the checkout).
    const outside = mkdtempSync('/tmp/spawn-cli-');
    const bad = await cli(
      'spawn',
      'claude_code',
      '--cwd',
      outside,
      '--worktree',
      'agent-a',
      ...envArgs,
    );
    expect(bad.exitCode, `${bad.stdout} ${bad.stderr}`).toBe(2);
    rmSync(outside, { recursive: true, force: true });
    expect(bad.stderr).toMatch(/--worktree.*not in a git repository/);
    const path = `${work}.worktrees/agent-a`;
    // Claude Code trusts folders one by one: the new worktree asks first, which is the answer.
    const r = await cli(
      'spawn',
      'claude_code',
      '--cwd',
      work,
      '--worktree',
      'agent-a',
      '--json',
      ...envArgs,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout) as {
      terminalId: string;
      readiness: { status: string };
      spawned: { cwd: string; worktree: { path: string; branch: string } };
    };
    expect(v.spawned.worktree).toEqual({ path, branch: 'agent-a' });
    expect(v.spawned.cwd).toBe(path);
    expect(['ready', 'blocked']).toContain(v.readiness.status);
    const again = await cli(
      'spawn',
      'claude_code',
      '--cwd',
      work,
      '--worktree',
      'agent-a',
      ...envArgs,
    );
    expect(again.stderr).toMatch(/--worktree.*branch agent-a already exists/);
    writeFileSync(join(path, 'change.txt'), 'work in progress\n');
    const refused = await cli('stop', v.terminalId, '--remove-worktree');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/has changes/);
    expect(existsSync(path)).toBe(true);
    const forced = await cli('stop', v.terminalId, '--remove-worktree', '--force');
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`removed ${path}`);
    expect(existsSync(path)).toBe(false);
  }, 120_000);
});
