import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEnviron, readSessionContext } from '../../src/sessions/context.js';

const root = resolve('.tmp/test-session-context', String(process.pid));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.pid) process.kill(c.pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('readSessionContext', () => {
  it('finds the agent process under the pane with its folder, environment, open files, start', async () => {
    const cwd = join(root, 'work');
    mkdirSync(cwd, { recursive: true });
    const record = join(cwd, 'session.jsonl');
    writeFileSync(record, '');
    const before = Date.now();
    // The "pane" is a shell; the "agent" under it holds the record open on fd 3.
    const shell = spawn('sh', ['-c', `sleep 30 3<'${record}'; true`], {
      cwd,
      env: { PATH: process.env.PATH, HOME: '/home/someone', CODEX_HOME: '/x y' },
      stdio: 'ignore',
    });
    children.push(shell);
    let ctx = null;
    for (let i = 0; i < 100 && !ctx; i += 1) {
      ctx = await readSessionContext(shell.pid as number, ['sleep'], {
        claimed: new Set(['/other']),
      });
      if (!ctx) await new Promise((r) => setTimeout(r, 20));
    }
    expect(ctx).not.toBeNull();
    if (!ctx) return;
    expect(ctx.pid).not.toBe(shell.pid);
    expect(ctx.cwd).toBe(cwd);
    expect(ctx.env).toMatchObject({ HOME: '/home/someone', CODEX_HOME: '/x y' });
    expect(ctx.openFiles).toContain(record);
    expect(ctx.argv).toEqual(['sleep', '30']);
    expect(ctx.claimed.has('/other')).toBe(true);
    // Clock ticks after boot: to within a tick or two of when it was spawned.
    expect(ctx.startedAtMs).toBeGreaterThanOrEqual(before - 1500);
    expect(ctx.startedAtMs).toBeLessThanOrEqual(Date.now() + 1500);
  });

  it('is null when no such process runs under the pane, or the pane is gone', async () => {
    expect(await readSessionContext(process.pid, ['no-such-agent-cli'])).toBeNull();
    expect(await readSessionContext(2 ** 22 + 7, ['sleep'])).toBeNull();
  });

  it('parses an environment block', () => {
    expect(parseEnviron('A=1\0B=x=y\0\0broken\0')).toEqual({ A: '1', B: 'x=y' });
  });
});
