import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  descendantsOf,
  findProcesses,
  matchesProcessName,
  matchTree,
  readProcessTable,
  readProcessTree,
} from '../../src/observe/process.js';
import type { ProcessEntry } from '../../src/observe/process.js';

describe('matchesProcessName', () => {
  it('matches by kernel name', () => {
    expect(matchesProcessName('claude', [], ['claude'])).toBe(true);
  });

  it('matches a native binary by argv[0], ignoring .exe', () => {
    expect(
      matchesProcessName(
        'claude.exe',
        ['/x/node_modules/@anthropic-ai/claude-code/bin/claude.exe'],
        ['claude'],
      ),
    ).toBe(true);
  });

  it('matches a node script by its path, skipping node options', () => {
    expect(
      matchesProcessName('node', ['node', '/x/node_modules/.bin/codex', 'exec'], ['codex']),
    ).toBe(true);
    expect(
      matchesProcessName(
        'node',
        ['/usr/bin/node', '--max-old-space-size=8192', '/x/bundle/gemini.js'],
        ['gemini'],
      ),
    ).toBe(true);
  });

  it('does not take any program whose argument has the name', () => {
    expect(matchesProcessName('vim', ['vim', 'claude'], ['claude'])).toBe(false);
    expect(matchesProcessName('node', ['node', 'server.js'], ['claude'])).toBe(false);
    expect(matchesProcessName('claude', ['claude'], [])).toBe(false);
  });
});

describe('descendantsOf', () => {
  const table = new Map<number, ProcessEntry>(
    [
      [1, 0, 'init'],
      [10, 1, 'tmux'],
      [11, 10, 'bash'],
      [12, 11, 'node'],
      [13, 12, 'codex'],
      [20, 1, 'other'],
    ].map(([pid, ppid, comm]) => [
      pid as number,
      { pid: pid as number, ppid: ppid as number, comm: comm as string },
    ]),
  );

  it('lists the root and everything under it, parents first', () => {
    expect(descendantsOf(table, 11)).toEqual([11, 12, 13]);
  });

  it('is empty for a pid that does not exist', () => {
    expect(descendantsOf(table, 99)).toEqual([]);
  });
});

describe('reading /proc', () => {
  it('sees this process with its parent', async () => {
    const table = await readProcessTable();
    expect(table.get(process.pid)?.ppid).toBe(process.ppid);
  });

  it('finds a named child under a root and not elsewhere', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const pid = child.pid as number;
      const found = await findProcesses(process.pid, ['sleep']);
      expect(found.pids).toContain(pid);
      expect(found.inspected).toBeGreaterThanOrEqual(2);
      expect((await findProcesses(pid, ['claude'])).pids).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('a fake /proc', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pw-fakeproc-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes one process; `children` per thread id, or undefined for a kernel without the lists. */
  function addProcess(
    pid: number,
    ppid: number,
    comm: string,
    argv: string[],
    children?: Record<number, number[]>,
  ): void {
    const dir = join(root, String(pid));
    mkdirSync(join(dir, 'task', String(pid)), { recursive: true });
    writeFileSync(join(dir, 'stat'), `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1`);
    writeFileSync(join(dir, 'cmdline'), argv.map((a) => `${a}\0`).join(''));
    for (const [tid, kids] of Object.entries(children ?? {})) {
      mkdirSync(join(dir, 'task', tid), { recursive: true });
      writeFileSync(join(dir, 'task', tid, 'children'), kids.map((k) => `${k} `).join(''));
    }
  }

  /** A pane's tree (sh → node claude, whose second thread started rg) and one stranger. */
  function paneTree(withLists: boolean): void {
    const lists = (l: Record<number, number[]>) => (withLists ? l : undefined);
    addProcess(10, 1, 'sh', ['sh'], lists({ 10: [11] }));
    addProcess(11, 10, 'node', ['node', '/x/bin/claude'], lists({ 11: [], 1100: [12] }));
    addProcess(12, 11, 'rg', ['rg', 'claude'], lists({ 12: [] }));
    addProcess(20, 1, 'claude', ['claude'], lists({ 20: [] }));
  }

  it('walks only the subtree when the kernel lists children', async () => {
    paneTree(true);
    // A process outside the tree that cannot be read: a full scan would fail on it.
    mkdirSync(join(root, '30', 'stat'), { recursive: true });
    await expect(readProcessTable({ procRoot: root })).rejects.toMatchObject({ code: 'internal' });
    const tree = await readProcessTree(10, { procRoot: root });
    expect(tree.map((p) => [p.pid, p.comm, p.argv])).toEqual([
      [10, 'sh', ['sh']],
      [11, 'node', ['node', '/x/bin/claude']],
      [12, 'rg', ['rg', 'claude']],
    ]);
    expect(await findProcesses(10, ['claude'], { procRoot: root })).toEqual({
      pids: [11],
      inspected: 3,
    });
  });

  it('leaves out a listed child whose parent is another process (a reused pid)', async () => {
    addProcess(10, 1, 'sh', ['sh'], { 10: [11] });
    addProcess(11, 99, 'claude', ['claude'], { 11: [] });
    expect((await readProcessTree(10, { procRoot: root })).map((p) => p.pid)).toEqual([10]);
  });

  it('falls back to the full table when the kernel does not list children', async () => {
    paneTree(false);
    expect(await findProcesses(10, ['claude'], { procRoot: root })).toEqual({
      pids: [11],
      inspected: 3,
    });
  });

  it('finds nothing under a process that is gone, with or without the lists', async () => {
    paneTree(true);
    expect(await findProcesses(77, ['claude'], { procRoot: root })).toEqual({
      pids: [],
      inspected: 0,
    });
  });

  it('shares one full scan within maxAgeMs, and scans again without it', async () => {
    paneTree(false);
    const shared = { procRoot: root, maxAgeMs: 60_000 };
    expect((await findProcesses(10, ['codex'], shared)).pids).toEqual([]);
    addProcess(13, 10, 'codex', ['codex']);
    expect((await findProcesses(10, ['codex'], shared)).pids).toEqual([]);
    expect((await findProcesses(10, ['codex'], { procRoot: root })).pids).toEqual([13]);
  });

  it('names the matching processes of a tree per profile from one read', async () => {
    paneTree(true);
    const tree = await readProcessTree(10, { procRoot: root });
    expect(matchTree(tree, ['claude'])).toEqual([11]);
    expect(matchTree(tree, ['rg', 'sh'])).toEqual([10, 12]);
    expect(matchTree(tree, [])).toEqual([]);
  });
});
