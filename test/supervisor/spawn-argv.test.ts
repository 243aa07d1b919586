/**
 * What a spawn hands tmux: argv entries, never a shell string. Hostile values (spaces, `;`,
 * `$(...)`, a newline) arrive in the CLI's argv and environment exactly as given, on a real tmux;
 * NUL and malformed names are refused naming the field before anything starts.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeZodError } from '../../src/internal/zod-errors.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { LAUNCH_RECIPES } from '../../src/profiles/launch.js';
import { SpawnBody, SpawnRequest } from '../../src/schemas/operations/spawn.js';
import { AttachBody } from '../../src/schemas/operations/attach.js';
import { z } from 'zod';
import {
  cliArgv,
  direct,
  newWindowArgs,
  resolveExecutable,
  respawnArgs,
  type LaunchPlan,
} from '../../src/supervisor/spawn-argv.js';

const HOSTILE = ['a b', 'x;y', '$(touch pwned)', '`id`', "it's", 'l1\nl2', '--', '-n'];
const SCRATCH = resolve('.tmp/spawn-argv');

describe('the argv a spawn builds', () => {
  const claude = LAUNCH_RECIPES.claude_code!;

  it('puts each user argument in its own entry, after the recipe, never joined', () => {
    const argv = cliArgv(claude, '/opt/bin/claude', HOSTILE, false);
    expect(argv).toEqual(['/opt/bin/claude', ...HOSTILE]);
    expect(cliArgv(claude, '/opt/bin/claude', ['x'], true)).toEqual([
      '/opt/bin/claude',
      '--continue',
      'x',
    ]);
    const codex = LAUNCH_RECIPES.codex!;
    expect(cliArgv(codex, '/c', [], true)).toEqual(['/c', 'resume', '--last']);
    // grok-cli has no resume option: a restart starts afresh.
    expect(cliArgv(LAUNCH_RECIPES.grok_cli!, '/g', [], true)).toEqual(['/g']);
  });

  it('always gives tmux several arguments (one alone would go to sh -c)', () => {
    const bare = (argv: string[]) => direct({ env: [], argv });
    expect(bare(['/opt/bin/claude'])).toEqual(['/usr/bin/env', '--', '/opt/bin/claude']);
    expect(() => bare(['claude'])).toThrow(/field `tool`/);
    expect(() => bare(['/a=b/claude'])).toThrow(/without "="/);
  });

  it('passes environment values as single NAME=VALUE entries to env, and the command after --', () => {
    const plan: LaunchPlan = {
      session: 's',
      window: 'w; kill-server',
      cwd: '/tmp/a b',
      env: [['K', 'v; $(x)\nnext']],
      argv: ['/bin/x', ...HOSTILE],
    };
    const args = respawnArgs('%3', plan);
    expect(args).toEqual([
      'respawn-pane',
      '-k',
      '-t',
      '%3',
      '-c',
      '/tmp/a b',
      '--',
      '/usr/bin/env',
      '--',
      'K=v; $(x)\nnext',
      '/bin/x',
      ...HOSTILE,
    ]);
    // The window's name is one argument: a `;` in it is no tmux command separator.
    expect(newWindowArgs(plan)).toContain('w; kill-server');
    // tmux expands formats in names and folders: a `#` is passed as `##`, read back as one.
    expect(newWindowArgs({ ...plan, window: 'm#(x)', cwd: '/a#{pid}' })).toEqual(
      expect.arrayContaining(['m##(x)', '/a##{pid}']),
    );
    expect(newWindowArgs(plan)).toContain('=s:');
  });

  it('finds the executable on the PATH given, not through a shell', () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    mkdirSync(join(SCRATCH, 'bin'), { recursive: true });
    writeFileSync(join(SCRATCH, 'bin/claude'), '#!/bin/sh\n');
    chmodSync(join(SCRATCH, 'bin/claude'), 0o755);
    writeFileSync(join(SCRATCH, 'bin/codex'), 'not executable');
    const path = `relative/dir:${join(SCRATCH, 'bin')}:/usr/bin`;
    expect(resolveExecutable('claude', path)).toBe(join(SCRATCH, 'bin/claude'));
    expect(resolveExecutable('codex', path)).toBeNull();
    expect(resolveExecutable('claude', 'relative/dir')).toBeNull();
  });
});

describe('the spawn request', () => {
  const error = (input: unknown) => {
    const r = SpawnRequest.safeParse(input);
    return r.success ? null : describeZodError(r.error);
  };

  it('refuses NUL, bad names and relative folders, naming the field', () => {
    expect(error({ tool: 'claude_code', args: ['ok', 'a\0b'] })).toMatch(
      /field `args.1`: an argument must not contain NUL/,
    );
    expect(error({ tool: 'claude_code', env: { K: 'v\0' } })).toMatch(
      /field `env.K`: an environment value must not contain NUL/,
    );
    expect(error({ tool: 'claude_code', env: { 'A B': 'x' } })).toMatch(
      /field `env.A B`: the name must be a variable name/,
    );
    expect(error({ tool: 'claude_code', env: { '1X': 'x' } })).toMatch(/field `env.1X`/);
    expect(error({ tool: 'claude_code', cwd: 'rel/dir' })).toMatch(
      /field `cwd`: must be an absolute path/,
    );
    expect(error({ tool: 'claude_code', session: 'a:b' })).toMatch(/field `session`/);
    expect(error({ tool: 'claude_code', name: 'a\nb' })).toMatch(/field `name`/);
    expect(error({ tool: 'Claude Code' })).toMatch(/field `tool`/);
    expect(error({ tool: 'claude_code', restart: 'always' })).toMatch(/field `restart`/);
    for (const bad of ['-b', 'a..b', 'x.lock', '/x', 'a//b', 'sp ace', 'a;b']) {
      expect(error({ tool: 'codex', worktree: bad }), bad).toMatch(/field `worktree`/);
    }
    expect(error({ tool: 'codex', worktree: 'feature/x-1' })).toBeNull();
    expect(error({ tool: 'codex', args: HOSTILE, env: { K: '$(x);\n' } })).toBeNull();
  });

  it('is told apart from an attach body, and a bad one names the field it meant', () => {
    const body = z.union([AttachBody, SpawnBody]);
    const say = (b: unknown) => {
      const r = body.safeParse(b);
      return r.success ? 'ok' : describeZodError(r.error);
    };
    expect(say({ spawn: { tool: 'codex' } })).toBe('ok');
    expect(say({ target: '%1' })).toBe('ok');
    expect(say({ spawn: { tool: 'codex', bogus: 1 } })).toBe('field `spawn.bogus`: unknown field');
    expect(say({ spawn: { tool: 'codex', args: ['\0'] } })).toMatch(/^field `spawn.args.0`/);
    expect(say({})).toMatch(/^field `target`/);
    expect(say({ target: '%1', extra: 1 })).toBe('field `extra`: unknown field');
  });
});

describe('on a real tmux', () => {
  const socketName = `spawn-argv-${process.pid}`;
  const transport = createExecaTransport({ socketName });
  const tmux = (...a: string[]) => execa('tmux', ['-L', socketName, ...a]);

  beforeAll(async () => {
    mkdirSync(SCRATCH, { recursive: true });
    await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'base');
  });
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    await transport.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('the CLI gets the hostile values verbatim, and no shell ran them', async () => {
    const out = join(SCRATCH, 'argv.json');
    const cwd = join(SCRATCH, 'a b;c');
    mkdirSync(cwd, { recursive: true });
    const plan: LaunchPlan = {
      session: 'base',
      window: 'w; kill-server',
      cwd,
      env: [['PANEWARD_T', 'v; $(touch pwned)\nnext']],
      argv: [
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({argv: process.argv.slice(1), env: process.env.PANEWARD_T, cwd: process.cwd()}))`,
        ...HOSTILE,
      ],
    };
    const pane = (await transport.run(newWindowArgs(plan))).trim();
    expect(pane).toMatch(/^%\d+$/);
    await transport.run(['set-option', '-w', '-t', pane, 'remain-on-exit', 'on']);
    await transport.run(respawnArgs(pane, plan));
    for (let i = 0; i < 100; i++) {
      const dead = await transport.run(['display-message', '-p', '-t', pane, '#{pane_dead}']);
      if (dead.trim() === '1') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen = JSON.parse(readFileSync(out, 'utf8')) as {
      argv: string[];
      env: string;
      cwd: string;
    };
    expect(seen.argv).toEqual(HOSTILE);
    expect(seen.env).toBe('v; $(touch pwned)\nnext');
    expect(seen.cwd).toBe(cwd);
    const name = await transport.run(['display-message', '-p', '-t', pane, '#{window_name}']);
    expect(name.trim()).toBe('w; kill-server');
    // Nothing was run by a shell: no file was created by the `$(...)`.
    expect(() => readFileSync(join(cwd, 'pwned'))).toThrow();
  });
});
