import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessWatcher } from '../../src/observe/process-watch.js';

describe('ProcessWatcher on a fake /proc', () => {
  let root: string;
  let clock: number;
  const watcher = (rescanMs = 10_000) =>
    new ProcessWatcher({ procRoot: root, rescanMs, now: () => clock });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pw-watchproc-'));
    clock = 0;
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** One process; `start` is the stat start time (field 22). */
  function put(
    pid: number,
    ppid: number,
    comm: string,
    argv: string[],
    start = pid,
    state = 'S',
  ): void {
    const dir = join(root, String(pid));
    mkdirSync(dir, { recursive: true });
    const fields = [state, ppid, pid, pid, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 0, start];
    writeFileSync(join(dir, 'stat'), `${pid} (${comm}) ${fields.join(' ')} 0 0\n`);
    writeFileSync(join(dir, 'cmdline'), argv.map((a) => `${a}\0`).join(''));
  }
  const kill = (pid: number) => rmSync(join(root, String(pid)), { recursive: true, force: true });

  it('reads new processes, forgets dead ones, and leaves known ones unread', async () => {
    put(10, 1, 'sh', ['sh']);
    put(11, 10, 'node', ['node', '/x/bin/claude']);
    put(20, 1, 'other', ['other']);
    const w = watcher();
    const first = await w.refresh();
    expect(first.born.map((b) => b.pid).sort()).toEqual([10, 11, 20]);
    expect(first.full).toBe(true);
    expect(await w.match(10, ['claude'])).toEqual({ pids: [11], tree: [10, 11] });

    clock = 1000;
    put(12, 11, 'rg', ['rg']);
    kill(20);
    // A known process rewritten in place is not read again by an incremental refresh.
    put(10, 1, 'claude', ['claude']);
    const second = await w.refresh();
    expect(second).toEqual({ born: [{ pid: 12, ppid: 11 }], died: [20], full: false });
    expect(await w.match(10, ['claude'])).toEqual({ pids: [11], tree: [10, 11, 12] });
    expect(w.size).toBe(3);
  });

  it('reads a stale subtree again when nothing in it matches (an exec in place)', async () => {
    put(10, 1, 'env', ['env', 'claude']);
    const w = watcher();
    await w.refresh();
    expect((await w.match(10, ['claude'])).pids).toEqual([]);
    // env exec'd the agent: same pid, new name. Seen once a later refresh has run.
    put(10, 1, 'claude', ['claude']);
    expect((await w.match(10, ['claude'])).pids).toEqual([]);
    clock = 500;
    await w.refresh();
    expect((await w.match(10, ['claude'])).pids).toEqual([10]);
  });

  it('reads a root born since the last refresh at once, and the rest of its tree later', async () => {
    const w = watcher();
    await w.refresh();
    put(30, 1, 'bash', ['bash']);
    put(31, 30, 'codex', ['codex']);
    expect(await w.match(30, ['codex'])).toEqual({ pids: [], tree: [30] });
    clock = 500;
    await w.refresh();
    expect(await w.match(30, ['codex'])).toEqual({ pids: [31], tree: [30, 31] });
    expect(await w.match(99, ['codex'])).toEqual({ pids: [], tree: [] });
  });

  it('tells a reused pid from its earlier owner on a full rescan', async () => {
    put(10, 1, 'sh', ['sh'], 100);
    put(11, 10, 'claude', ['claude'], 110);
    const w = watcher(5000);
    await w.refresh();
    // pid 10 died and was reused by an unrelated process; its old child lives on.
    put(10, 1, 'vim', ['vim'], 500);
    clock = 1000;
    expect((await w.refresh()).born).toEqual([]);
    clock = 6000;
    const full = await w.refresh();
    expect(full.full).toBe(true);
    expect(full.died).toEqual([10]);
    expect(full.born).toEqual([{ pid: 10, ppid: 1 }]);
    // The orphan started before the new pid 10: it is not that process's child.
    expect(await w.match(10, ['claude'])).toEqual({ pids: [], tree: [10] });
  });

  it('counts a zombie as dead: at once when new, on the next full rescan when known', async () => {
    put(10, 1, 'claude', ['claude'], 10, 'Z');
    put(11, 1, 'codex', ['codex']);
    const w = watcher(5000);
    expect((await w.refresh()).born).toEqual([{ pid: 11, ppid: 1 }]);
    expect(await w.match(10, ['claude'])).toEqual({ pids: [], tree: [] });
    // The agent exits and is not reaped: its /proc entry stays.
    put(11, 1, 'codex', ['codex'], 11, 'Z');
    clock = 1000;
    expect((await w.refresh()).died).toEqual([]);
    clock = 6000;
    expect((await w.refresh()).died).toEqual([11]);
    expect((await w.match(11, ['codex'])).pids).toEqual([]);
  });

  it('shares one running refresh between callers', async () => {
    for (let pid = 100; pid < 400; pid++) put(pid, 1, 'p', ['p']);
    const w = watcher();
    const a = w.refresh();
    const b = w.refresh();
    expect(b).toBe(a);
    expect((await a).born).toHaveLength(300);
    expect(w.generation).toBe(1);
  });

  it('rejects when /proc cannot be listed', async () => {
    const w = new ProcessWatcher({ procRoot: join(root, 'missing') });
    await expect(w.refresh()).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('ProcessWatcher on the real /proc', () => {
  it('sees a child process start and end', async () => {
    const w = new ProcessWatcher();
    await w.refresh();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const changes = await w.refreshFromNow();
      expect(changes.born.map((b) => b.pid)).toContain(child.pid);
      const m = await w.match(process.pid, ['sleep']);
      expect(m.pids).toContain(child.pid);
      expect(m.tree[0]).toBe(process.pid);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    expect((await w.refreshFromNow()).died).toContain(child.pid);
    expect((await w.match(process.pid, ['sleep'])).pids).not.toContain(child.pid);
  });
});
