/**
 * A stop ends what the CLI left behind, and nothing else. The stand-in CLI (a `claude` script
 * that plays a real Claude Code recording) starts two helpers the way agent CLIs do: one in a
 * session of its own that stays its child (as Codex's app-server daemon does), and one double
 * forked, handed to init at once. Closing the window reaches neither; the stop must end both,
 * while a sleeper of the test's own and the helpers of another spawned terminal keep running.
 * And `removeWorktree` leaves no empty `<repo>.worktrees/` behind.
 */
import { spawn as startProcess, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { uniqueSocketName } from '../e2e/harness/session.js';

const PLAYER = resolve('src/tooling/demo/player.mjs');
const RECORDING = resolve('recordings/claude_code/permission-prompt.jsonl');

/** Whether `pid` runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
  } catch {
    return false;
  }
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

async function pidIn(file: string, timeoutMs = 5000): Promise<number> {
  for (let i = 0; i < timeoutMs / 50; i++) {
    if (existsSync(file)) {
      const n = Number(readFileSync(file, 'utf8').trim());
      if (n > 1) return n;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pid in ${file}`);
}

describe('stop ends what the CLI left behind', () => {
  const socketName = uniqueSocketName('pw-leftovers');
  const root = mkdtempSync('/tmp/pw-leftovers-');
  const bin = join(root, 'bin');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args]);
  let sup: Supervisor;
  let own: ChildProcess;
  const started: number[] = [];

  beforeAll(async () => {
    mkdirSync(bin);
    mkdirSync(join(root, 'play'));
    symlinkSync(process.execPath, join(root, 'play', 'claude'));
    writeFileSync(
      join(bin, 'claude'),
      [
        '#!/bin/sh',
        // A helper in a session of its own that stays the CLI's child...
        'setsid sleep 3601 & echo $! > "$PW_OUT.child"',
        // ...and one double forked: its parent exits at once, it is handed to init.
        '( setsid sleep 3602 & echo $! > "$PW_OUT.orphan" )',
        `exec '${root}/play/claude' '${PLAYER}' '${RECORDING}' 3600`,
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'claude'), 0o755);
    await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'base', '/bin/sleep', '100000');
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.1 } });
    own = startProcess('sleep', ['3603'], { detached: true, stdio: 'ignore' });
    own.unref();
  });

  afterAll(async () => {
    await sup?.stop();
    await tmux('kill-server').catch(() => undefined);
    for (const pid of [...started, own?.pid ?? 0]) {
      if (pid > 1 && running(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(root, { recursive: true, force: true });
    rmSync(`${join(root, 'repo')}.worktrees`, { recursive: true, force: true });
  });

  const spawnStandIn = async (
    name: string,
    extra: { cwd?: string; worktree?: string; restart?: 'on-failure' } = {},
  ) => {
    const out = join(root, name);
    const r = await sup.spawn({
      tool: 'claude_code',
      name,
      cwd: extra.cwd ?? root,
      ...(extra.worktree ? { worktree: extra.worktree } : {}),
      ...(extra.restart
        ? { restart: extra.restart, restartLimits: { initialSeconds: 0.5, limit: 3 } }
        : {}),
      env: { PATH: `${bin}:/usr/bin:/bin`, PW_OUT: out },
      readyTimeoutSeconds: 20,
    });
    const child = await pidIn(`${out}.child`);
    const orphan = await pidIn(`${out}.orphan`);
    started.push(child, orphan);
    return {
      id: r.terminalId,
      paneId: r.spawned.paneId,
      child,
      orphan,
      worktree: r.spawned.worktree,
    };
  };

  it('ends the helpers of the stopped CLI, and only those', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    await execa('git', ['init', '-q', '-b', 'main', repo]);
    await execa('git', [
      ...['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t'],
      ...['commit', '-q', '--allow-empty', '-m', 'start'],
    ]);
    const a = await spawnStandIn('a', { cwd: repo, worktree: 'feature/a' });
    const b = await spawnStandIn('b');
    for (const pid of [a.child, a.orphan, b.child, b.orphan]) expect(running(pid)).toBe(true);
    // One is the CLI's child; the double-forked one is no descendant of the pane's process.
    const panePid = Number(
      (await tmux('display-message', '-p', '-t', a.paneId, '#{pane_pid}')).stdout.trim(),
    );
    expect(parentOf(a.child)).toBe(panePid);
    expect(parentOf(a.orphan)).not.toBe(panePid);

    // The stand-in does not know `/exit`: the window is killed after the timeout.
    const stopped = await sup.stopTerminal({
      id: a.id,
      force: true,
      timeoutSeconds: 1,
      removeWorktree: true,
    });
    expect(stopped.ended).toBe('killed');
    expect(running(a.child)).toBe(false);
    expect(running(a.orphan)).toBe(false);
    // Not started from that pane: left alone.
    expect(running(b.child)).toBe(true);
    expect(running(b.orphan)).toBe(true);
    expect(running(own.pid!)).toBe(true);
    // The worktree went, and with it the `.worktrees` folder (a branch with a slash made two).
    expect(stopped.worktreeRemoved).toBe(a.worktree?.path);
    expect(existsSync(`${repo}.worktrees`)).toBe(false);

    await sup.stopTerminal({ id: b.id, force: true, timeoutSeconds: 1 });
    expect(running(b.child)).toBe(false);
    expect(running(b.orphan)).toBe(false);
    expect(running(own.pid!)).toBe(true);
  }, 60_000);

  it('a CLI restarted after it died: what the dead one left is ended before the next starts', async () => {
    const d = await spawnStandIn('d', { restart: 'on-failure' });
    const other = await spawnStandIn('e');
    const panePid = Number(
      (await tmux('display-message', '-p', '-t', d.paneId, '#{pane_pid}')).stdout.trim(),
    );
    rmSync(join(root, 'd.child'));
    rmSync(join(root, 'd.orphan'));
    process.kill(panePid, 'SIGKILL');
    // The restarted stand-in starts its own helpers, and writes their pids anew.
    const nextChild = await pidIn(join(root, 'd.child'), 30_000);
    const nextOrphan = await pidIn(join(root, 'd.orphan'), 30_000);
    started.push(nextChild, nextOrphan);
    expect(nextChild).not.toBe(d.child);
    expect(running(d.child)).toBe(false);
    expect(running(d.orphan)).toBe(false);
    expect(running(nextChild)).toBe(true);
    expect(running(nextOrphan)).toBe(true);
    // Another terminal's helpers and the test's own sleeper are not the dead CLI's.
    expect(running(other.child)).toBe(true);
    expect(running(other.orphan)).toBe(true);
    expect(running(own.pid!)).toBe(true);
    await sup.stopTerminal({ id: d.id, force: true, timeoutSeconds: 1 });
    await sup.stopTerminal({ id: other.id, force: true, timeoutSeconds: 1 });
    for (const pid of [nextChild, nextOrphan, other.child, other.orphan]) {
      expect(running(pid)).toBe(false);
    }
  }, 90_000);

  it('a CLI that already exited: its helpers are ended all the same', async () => {
    const c = await spawnStandIn('c');
    const pane = (await tmux('list-panes', '-a', '-F', '#{window_name} #{pane_pid}')).stdout
      .split('\n')
      .find((l) => l.startsWith('c '));
    process.kill(Number(pane!.split(' ')[1]), 'SIGKILL');
    for (let i = 0; i < 100 && running(Number(pane!.split(' ')[1])); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const stopped = await sup.stopTerminal({ id: c.id, force: true, timeoutSeconds: 1 });
    expect(stopped.ended).toBe('already_gone');
    expect(running(c.child)).toBe(false);
    expect(running(c.orphan)).toBe(false);
    expect(running(own.pid!)).toBe(true);
  }, 60_000);
});
