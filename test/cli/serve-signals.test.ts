/**
 * `paneward serve` as a process, given SIGTERM while something it waits on would take long or
 * forever: it ends within 2 s all the same (docs/service.md, "Stopping").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./internal/stop-within-child.ts', import.meta.url));

/** The TCP port a process listens on, from /proc (nothing needs to be logged). */
async function portOf(pid: number): Promise<number> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const inodes = new Set(
        readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          return m ? [m[1]!] : [];
        }),
      );
      for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f[3] === '0A' && inodes.has(f[9]!)) return parseInt(f[1]!.split(':')[1]!, 16);
      }
    } catch {
      // Not there yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pid ${pid} listens on no TCP port`);
}

let dir = '';
let socket = '';
let child: ChildProcess | null = null;
let output = '';
let stoppedPid: number | null = null;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  if (stoppedPid !== null) {
    try {
      process.kill(stoppedPid, 'SIGCONT');
    } catch {
      // Gone already.
    }
    stoppedPid = null;
  }
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // Gone already.
  }
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), {
    force: true,
  });
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** A tmux server of the test's own with one session, and `paneward serve` on it. */
async function startServe(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'pw-serve-sig-'));
  socket = `hks-sig-${process.pid}-${(n += 1)}`;
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'base', 'sh']);
  output = '';
  child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--socket-name',
      socket,
      '--no-discover',
      '--log-level',
      'info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  return `http://127.0.0.1:${await portOf(child.pid!)}`;
}

/** SIGTERM, and how long until the process was gone, with its exit code. */
async function terminate(): Promise<{ ms: number; code: number | null; signal: string | null }> {
  const c = child!;
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    c.once('exit', (code, signal) => r({ code, signal })),
  );
  const t0 = Date.now();
  c.kill('SIGTERM');
  const end = await Promise.race([
    exited,
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000)),
  ]);
  if (end === 'hung') throw new Error(`still running 10 s after SIGTERM\nserve said:\n${output}`);
  return { ms: Date.now() - t0, ...end };
}

describe('paneward serve ends within 2 s of SIGTERM', () => {
  it('while a spawned CLI that failed waits an hour for its restart', async () => {
    const url = await startServe();
    // A stand-in `codex` that fails at once; on-failure restarts back off for an hour.
    const bin = join(dir, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'codex'), '#!/bin/sh\necho failing on purpose\nexit 3\n');
    chmodSync(join(bin, 'codex'), 0o755);
    const spawning = new AbortController();
    void fetch(`${url}/v1/terminals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        spawn: {
          tool: 'codex',
          cwd: dir,
          session: 'sig',
          name: 'dies',
          env: { PATH: `${bin}:${process.env.PATH}` },
          restart: 'on-failure',
          restartLimits: { initialSeconds: 3600, maxSeconds: 3600, limit: 5 },
        },
      }),
      signal: spawning.signal,
    }).catch(() => undefined);
    // It failed, and its restart is waiting for its backoff.
    await expect
      .poll(
        async () => {
          const r = await fetch(`${url}/v1/terminals/sig-dies`);
          if (r.status !== 200) return null;
          const t = (await r.json()) as { spawned?: { restart?: { lastExit: unknown } } };
          return t.spawned?.restart?.lastExit ?? null;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toMatchObject({ status: 3 });
    const { ms, code } = await terminate();
    spawning.abort();
    expect(ms, output).toBeLessThan(2000);
    expect(code, output).toBe(0);
    // It stopped cleanly: the restart's timer was cancelled, not cut short by the deadline.
    expect(output).toMatch(/paneward serve stopped/);
    expect(output).not.toMatch(/still held|did not finish/);
  }, 60_000);

  it('while its tmux server is stopped (SIGSTOP) and answers nothing', async () => {
    const url = await startServe();
    // Its pane attached: the server watches it through tmux.
    const attached = await fetch(`${url}/v1/terminals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'base:0.0', tool: 'claude_code', id: 'watched' }),
    });
    expect(attached.status, await attached.clone().text()).toBe(201);
    const pid = Number(
      execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}']).toString().trim(),
    );
    process.kill(pid, 'SIGSTOP');
    stoppedPid = pid;
    // Something asked of tmux now never comes back.
    const asked = fetch(`${url}/v1/terminals/watched/screen`, {
      signal: AbortSignal.timeout(8000),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const { ms, code, signal } = await terminate();
    expect(ms, output).toBeLessThan(2000);
    expect([code, signal], output).toEqual([null, 'SIGTERM']);
    // It said why it did not wait for everything, and ended by the signal it was sent.
    expect(output).toMatch(
      /did not finish within 1.5 s \(still stopping: [^)]+\); ending it by SIGTERM/,
    );
    process.kill(pid, 'SIGCONT');
    stoppedPid = null;
    await asked;
  }, 60_000);

  for (const mode of ['blocked', 'held'] as const) {
    it(`while a read of a FIFO ${mode === 'blocked' ? 'holds the stop up' : 'is still pending after it'} (no process.exit, which would wait for it)`, async () => {
      dir = mkdtempSync(join(tmpdir(), 'pw-serve-sig-'));
      socket = `hks-sig-none-${process.pid}`;
      const fifo = join(dir, 'record.fifo');
      execFileSync('mkfifo', [fifo]);
      output = '';
      child = spawn(process.execPath, ['--import', 'tsx', CHILD, fifo, mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
      await new Promise<void>((r) =>
        child!.stdout!.on('data', (b: Buffer) => {
          if (b.toString().includes('ready')) r();
        }),
      );
      const { ms, code, signal } = await terminate();
      expect(ms, output).toBeLessThan(2000);
      expect([code, signal], output).toEqual([null, 'SIGTERM']);
      expect(output).toBe(
        mode === 'blocked'
          ? 'paneward serve: the shutdown did not finish within 1.5 s (still stopping: session record follower); ending it by SIGTERM\n'
          : 'paneward serve: stopped, but something still held the process 1.5 s after SIGTERM; ending it\n',
      );
    }, 30_000);
  }
});
