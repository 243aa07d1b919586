import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  descendantsOf,
  findProcesses,
  matchesProcessName,
  readProcessTable,
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
