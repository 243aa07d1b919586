/**
 * `npm run bench:serve`: `paneward serve` under load, on loopback, on its own tmux socket.
 * N panes (each printing the time every 3 s) are attached over HTTP; C clients follow the
 * record stream over SSE while R requests a second (state reads, lists, history, health) run
 * for S seconds. Prints the machine, request latency p50/p99, records journaled against records
 * each SSE client received (they must be equal), and the CPU of the server and of the tmux
 * server. Bounded and self-cleaning; flags make a quick run (`--panes 20 --seconds 10`).
 */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { journalDir, readRecords } from '../src/journal/segments.js';
import { tmuxArgs, tmuxEnv } from '../src/observe/tmux-locale.js';

const BIN = fileURLToPath(new URL('../bin/paneward.js', import.meta.url));

interface Options {
  panes: number;
  clients: number;
  rps: number;
  seconds: number;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { panes: 200, clients: 100, rps: 50, seconds: 60 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Options;
    const value = Number(argv[i + 1]);
    if (!(key in o) || !Number.isFinite(value) || value <= 0) {
      throw new Error(
        `usage: npm run bench:serve -- [--panes N] [--clients N] [--rps N] [--seconds N] (got ${argv[i]} ${argv[i + 1]})`,
      );
    }
    o[key] = key === 'seconds' ? Math.min(value, 600) : Math.min(Math.floor(value), 2000);
  }
  return o;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  s.close();
  return port;
}

/** Follows /v1/events from `since`, counting records, until aborted. */
function sseClient(
  base: string,
  since: number,
  signal: AbortSignal,
): { seqs: number[]; done: Promise<void> } {
  const seqs: number[] = [];
  const done = (async () => {
    try {
      const res = await fetch(`${base}/v1/events?since=${since}`, { signal });
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (id) seqs.push(Number(id));
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
  return { seqs, done };
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'pw-bench-serve-'));
  const socket = `pw-bench-serve-${process.pid}`;
  const tmux = (...args: string[]) =>
    execa('tmux', tmuxArgs(['-L', socket, '-f', '/dev/null', ...args]), {
      env: tmuxEnv(),
      extendEnv: false,
    });
  // A line every 3 s: the surface changes, then holds still (stability flips): records flow.
  const clock = "sh -c 'while :; do date +%T.%N; sleep 3; done'";
  let serverPid = 0;
  const stopServer = () => {
    if (serverPid) process.kill(serverPid, 'SIGTERM');
  };
  process.on('SIGINT', () => {
    stopServer();
    void tmux('kill-server').finally(() => process.exit(130));
  });
  try {
    await tmux('new-session', '-d', '-s', 'bench', '-x', '160', '-y', '45', clock);
    for (let i = 1; i < o.panes; i++) await tmux('new-window', '-d', '-t', 'bench', clock);
    const tmuxPid = Number((await tmux('display-message', '-p', '#{pid}')).stdout.trim());
    const panes = (await tmux('list-panes', '-a', '-F', '#{pane_id}')).stdout.trim().split('\n');

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        String(port),
        '-L',
        socket,
        '--data-dir',
        join(dir, 'data'),
        '--no-discover',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    serverPid = server.pid!;
    for (let t = 0; ; t++) {
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (t > 150) throw new Error('paneward serve did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const [i, pane] of panes.entries()) {
      const r = await fetch(`${base}/v1/terminals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: pane, tool: 'unsupported', id: `p${i}` }),
      });
      if (r.status !== 201) throw new Error(`attach ${pane}: ${r.status} ${await r.text()}`);
    }
    // Let the panes settle, then measure from here.
    await new Promise((r) => setTimeout(r, 3000));
    const startSeq = (
      (await (await fetch(`${base}/healthz`)).json()) as { journal: { durableSeq: number } }
    ).journal.durableSeq;
    const stopClients = new AbortController();
    setMaxListeners(o.clients + 10, stopClients.signal);
    const clients = Array.from({ length: o.clients }, () =>
      sseClient(base, startSeq, stopClients.signal),
    );

    const cpu0 = {
      server: cpuSeconds(serverPid),
      tmux: cpuSeconds(tmuxPid),
      at: performance.now(),
    };
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const inflight: Promise<void>[] = [];
    const paths = (n: number) => {
      const r = n % 20;
      if (r === 0) return '/v1/terminals';
      if (r === 1) return '/healthz';
      if (r < 4) return `/v1/terminals/p${n % o.panes}/history?limit=20`;
      return `/v1/terminals/p${n % o.panes}`;
    };
    const total = Math.round(o.rps * o.seconds);
    const began = performance.now();
    for (let n = 0; n < total; n++) {
      const due = began + (n * 1000) / o.rps;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(
        (async () => {
          const t0 = performance.now();
          const res = await fetch(`${base}${paths(n)}`);
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        })(),
      );
    }
    await Promise.all(inflight);
    const cpu1 = {
      server: cpuSeconds(serverPid),
      tmux: cpuSeconds(tmuxPid),
      at: performance.now(),
    };
    const endSeq = (
      (await (await fetch(`${base}/healthz`)).json()) as { journal: { durableSeq: number } }
    ).journal.durableSeq;
    // Give the clients a moment to take the last records, then compare with the journal.
    await new Promise((r) => setTimeout(r, 2000));
    stopClients.abort();
    await Promise.all(clients.map((c) => c.done));
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    serverPid = 0;
    const journaled = readRecords(journalDir(join(dir, 'data')), startSeq).filter(
      (r) => r.seq <= endSeq,
    ).length;
    const delivered = clients.map((c) => c.seqs.filter((s) => s <= endSeq).length);
    const inOrder = clients.every((c) =>
      c.seqs.every((s, i) => i === 0 || s === c.seqs[i - 1]! + 1),
    );

    const wall = (cpu1.at - cpu0.at) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const cpu = cpus();
    console.log(
      `machine: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${(await execa('tmux', ['-V'])).stdout}, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `load: ${o.panes} panes (a line every 3 s each), ${o.clients} SSE clients, ${o.rps} requests/s for ${o.seconds} s (loopback)`,
    );
    console.log(
      `requests: ${latencies.length}, statuses ${JSON.stringify(Object.fromEntries(statuses))}, latency p50 ${pct(sorted, 0.5).toFixed(1)} ms, p99 ${pct(sorted, 0.99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`,
    );
    console.log(
      `records: journaled ${journaled} (seq ${startSeq + 1}..${endSeq}); delivered per SSE client min ${Math.min(...delivered)}, max ${Math.max(...delivered)}; every client in order with no gap: ${inOrder}`,
    );
    console.log(
      `cpu (% of one core over ${wall.toFixed(1)} s): paneward serve ${((100 * (cpu1.server - cpu0.server)) / wall).toFixed(1)} %, tmux server ${((100 * (cpu1.tmux - cpu0.tmux)) / wall).toFixed(1)} %`,
    );
    const equal = delivered.every((d) => d === journaled);
    console.log(
      equal
        ? 'delivered = journaled for every client'
        : 'MISMATCH: some client did not receive every journaled record',
    );
    return equal && inOrder ? 0 : 1;
  } finally {
    stopServer();
    const socketPath = await tmux('display-message', '-p', '#{socket_path}').catch(() => null);
    await tmux('kill-server').catch(() => {});
    // tmux leaves its socket file behind when the server exits.
    if (socketPath?.stdout.trim()) rmSync(socketPath.stdout.trim(), { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:serve failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
