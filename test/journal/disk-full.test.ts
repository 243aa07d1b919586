import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, readRecords } from '../../src/journal/segments.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { JournalRecord } from '../../src/schemas/record.js';

/**
 * A full disk, for real: a small tmpfs is mounted (as root, which CI is; skipped where it cannot
 * be mounted), filled with a file until the kernel says ENOSPC, and emptied again.
 */
const root = mkdtempSync(join(tmpdir(), 'pw-diskfull-'));
const mnt = join(root, 'mnt');
mkdirSync(mnt);
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mnt], {
    stdio: 'ignore',
  });
  mounted = true;
} catch {
  mounted = false;
}
const unmount = () => {
  if (mounted) {
    try {
      execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    } catch {
      // Already gone.
    }
    mounted = false;
  }
  rmSync(root, { recursive: true, force: true });
};
// However the run ends, the mount goes.
process.once('exit', unmount);
afterAll(unmount);

const filler = join(mnt, 'filler');

/** Fills the file system to its last byte. */
function fill(): void {
  const fd = openSync(filler, 'a');
  const chunk = Buffer.alloc(4096, 0x61);
  try {
    for (;;) {
      try {
        if (writeSync(fd, chunk) < chunk.length) break;
      } catch {
        break;
      }
    }
    // What the last page still takes, a byte at a time.
    for (;;) {
      try {
        if (writeSync(fd, chunk, 0, 1) < 1) break;
      } catch {
        break;
      }
    }
  } finally {
    closeSync(fd);
  }
}
const free = () => rmSync(filler, { force: true });

/** Attaches and detaches a pane until `/healthz` says the journal cannot write. */
async function churn(url: string, prefix: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`${url}/healthz`)).status === 503) return;
    const id = `${prefix}${i}`;
    await fetch(`${url}/v1/terminals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'df:0.0', id }),
    });
    await fetch(`${url}/v1/terminals/${id}`, { method: 'DELETE', headers: { 'x-paneward': '1' } });
  }
}

/** The TCP port a process listens on (from /proc/net/tcp, by its sockets' inodes). */
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

const started = (pid: number) =>
  ({ kind: 'supervisor.started', terminalId: null, pid }) as const satisfies Parameters<
    Journal['append']
  >[0];

describe.skipIf(!mounted)('a full disk', () => {
  it('no acknowledged record is lost or reused; the journal says why, recovers, and closes at once', async () => {
    const data = join(mnt, 'j');
    const j = new Journal({ dataDir: data, probeMs: 50 });
    const acked: JournalRecord[] = [];
    for (let i = 0; i < 20; i++) acked.push(await j.append(started(i)));
    fill();
    // Appends go on until the disk refuses one; those acknowledged are whole on disk.
    let refused: unknown = null;
    for (let i = 0; i < 5000 && refused === null; i++) {
      await j.append(started(1000 + i)).then(
        (r) => acked.push(r),
        (e: unknown) => (refused = e),
      );
    }
    expect(String(refused)).toMatch(/the journal cannot be written: the disk is full/);
    expect(j.failure?.message).toMatch(/the disk is full/);
    expect(j.durableSeq).toBe(acked.at(-1)!.seq);
    expect(readRecords(journalDir(data)).map((r) => r.seq)).toEqual(acked.map((r) => r.seq));
    await expect(j.append(started(-1))).rejects.toThrow(/the disk is full/);
    // Still full: the probe finds no space, the failure stays.
    await new Promise((r) => setTimeout(r, 200));
    expect(j.failure).not.toBeNull();
    free();
    await expect.poll(() => j.failure, { timeout: 5000, interval: 50 }).toBeNull();
    const next = await j.append(started(-2));
    expect(next.seq).toBe(acked.at(-1)!.seq + 1);
    acked.push(next);
    fill();
    const t0 = Date.now();
    await j.append(started(-3)).catch(() => {});
    // Closing a journal that cannot write does not wait for space.
    await j.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    free();
    const again = new Journal({ dataDir: data });
    const onDisk = again.read().map((r) => r.seq);
    expect(onDisk.slice(0, acked.length)).toEqual(acked.map((r) => r.seq));
    expect(new Set(onDisk).size).toBe(onDisk.length);
    const after = await again.append(started(-4));
    expect(acked.map((r) => r.seq)).not.toContain(after.seq);
    await again.close();
    rmSync(data, { recursive: true, force: true });
  });

  describe('behind the HTTP service', () => {
    let sup: Supervisor;
    let http: HttpApp;
    let server: Server;
    let base: string;

    beforeAll(async () => {
      sup = createSupervisor({ dataDir: join(mnt, 'svc'), socketName: 'jrn-diskfull-none' });
      http = createHttpApp(sup, { sse: { heartbeatMs: 200, writeTimeoutMs: 2000 } });
      server = createServer(http.listener);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await sup.journal.flush();
    });
    afterAll(async () => {
      free();
      server?.close();
      server?.closeAllConnections();
      http?.close();
      await sup?.stop();
    });

    it('/healthz answers 503 with the reason while full, SSE clients get an error event, both recover', async () => {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const abort = new AbortController();
      const events: Array<{ event: string; data: string }> = [];
      const res = await fetch(`${base}/v1/events`, { signal: abort.signal });
      const reading = (async () => {
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true });
            for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const ev = { event: 'message', data: '' };
              for (const line of block.split('\n')) {
                if (line.startsWith('event:')) ev.event = line.slice(6).trim();
                if (line.startsWith('data:')) ev.data = line.slice(5).trim();
              }
              events.push(ev);
            }
          }
        } catch {
          // Aborted at the end.
        }
      })();
      fill();
      let acknowledged = sup.journal.durableSeq;
      for (let i = 0; i < 5000 && !sup.journal.failure; i++) {
        await sup.journal.append(started(i)).then(
          (r) => (acknowledged = r.seq),
          () => {},
        );
      }
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as {
        status: string;
        journal: { durableSeq: number; failure: { message: string } };
      };
      expect(body.status).toBe('unavailable');
      expect(body.journal.failure.message).toMatch(/the disk is full/);
      expect(body.journal.durableSeq).toBe(acknowledged);
      await expect
        .poll(() => events.find((e) => e.event === 'error'), { timeout: 5000 })
        .toBeTruthy();
      expect(JSON.parse(events.find((e) => e.event === 'error')!.data)).toMatchObject({
        code: 'journal_failed',
        message: expect.stringMatching(/the disk is full/),
      });
      free();
      await expect
        .poll(async () => (await fetch(`${base}/healthz`)).status, { timeout: 5000 })
        .toBe(200);
      await expect
        .poll(() => events.some((e) => e.event === 'recovered'), { timeout: 5000 })
        .toBe(true);
      const next = await sup.journal.append(started(-1));
      expect(next.seq).toBe(acknowledged + 1);
      await expect
        .poll(
          () =>
            events.some(
              (e) => e.event === 'supervisor.started' && e.data.includes(`"seq":${next.seq},`),
            ),
          {
            timeout: 5000,
          },
        )
        .toBe(true);
      abort.abort();
      await reading;
    });
  });

  it('paneward serve on a full disk: /healthz 503, recovery, and the first SIGTERM ends it promptly', async () => {
    const bin = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
    const data = join(mnt, 'serve');
    const socket = `jrn-diskfull-${process.pid}`;
    execFileSync('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'df',
      '-x',
      '80',
      '-y',
      '24',
      'sh',
    ]);
    let child: ChildProcess | null = null;
    let output = '';
    try {
      child = spawn(
        process.execPath,
        [
          bin,
          'serve',
          '--port',
          '0',
          '--data-dir',
          data,
          '--socket-name',
          socket,
          '--log-level',
          'info',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
      );
      child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
      child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
      // The port it took, from /proc (nothing is logged at warn).
      const port = await portOf(child.pid!);
      const url = `http://127.0.0.1:${port}`;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      fill();
      // Attaching and detaching a pane is journaled: the writes go on until the disk refuses one.
      await churn(url, 'a');
      expect((await fetch(`${url}/healthz`)).status).toBe(503);
      free();
      await expect
        .poll(async () => (await fetch(`${url}/healthz`)).status, { timeout: 10_000 })
        .toBe(200);
      fill();
      await churn(url, 'b');
      expect((await fetch(`${url}/healthz`)).status).toBe(503);
      // An SSE client is following, and was told.
      const sse = new AbortController();
      const events = await fetch(`${url}/v1/events?since=0`, { signal: sse.signal });
      const reader = events.body!.getReader();
      let seen = '';
      while (!seen.includes('event: error')) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      expect(seen).toMatch(/event: error\ndata: \{"code":"journal_failed"/);
      // Stopped while the disk is full: the first SIGTERM ends it.
      const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
      const t0 = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(code).toBe(0);
      sse.abort();
      expect(output).not.toMatch(/\n\s+at /);
    } catch (error) {
      throw new Error(`${String(error)}\nserve said:\n${output}`, { cause: error });
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      free();
      try {
        execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // Gone already.
      }
      rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), {
        force: true,
      });
    }
  }, 90_000);
});
