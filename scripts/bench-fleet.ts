/**
 * `npm run bench:fleet`: a fleet on loopback. A nats-server with JetStream; H edge processes
 * (`paneward serve --nats --host-id`), each on its own tmux server with P panes of a light
 * stand-in agent (a shell script); one fleet server (`paneward serve --fleet`) with one SSE
 * client following every host. For S seconds prompts go to random panes at R per second (through
 * each edge's own API; a busy pane refuses), so turns run and records flow. It measures records published per second,
 * the latency from a record's stamp on its edge (the state change) to its arrival at the fleet's
 * SSE client (p50/p99), and the CPU of every part; then each edge stops and the script checks
 * that each host's journal and the stream hold the same records, each once. Prints the machine.
 * Bounded and self-cleaning; flags make a quick run (`--hosts 2 --panes 20 --seconds 10`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { untilStopSignal } from '../src/cli/signals.js';
import { tmuxArgs, tmuxEnv } from '../src/observe/tmux-locale.js';
import { journalDir, readRecords } from '../src/journal/segments.js';
import {
  freePort,
  NatsServer,
  PROFILES,
  readStream,
  streamSize,
} from '../test/fleet/internal/harness.js';

const BIN = fileURLToPath(new URL('../bin/paneward.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./internal/fleet/stand-in-agent', import.meta.url));

interface Options {
  hosts: number;
  panes: number;
  seconds: number;
  poll: number;
  rate: number;
}

function parseArgs(argv: readonly string[]): Options {
  // --poll: the supervisor's poll interval, its default 0.5 s (under control mode a pane that
  // keeps changing is captured at most that often; a quiet one is not captured at all).
  const o: Options = { hosts: 3, panes: 200, seconds: 60, poll: 0.5, rate: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Options;
    const value = Number(argv[i + 1]);
    if (!(key in o) || !Number.isFinite(value) || value <= 0) {
      throw new Error(
        `usage: npm run bench:fleet -- [--hosts N] [--panes N] [--seconds N] [--poll SECONDS] [--rate PROMPTS_PER_SECOND] (got ${argv[i]} ${argv[i + 1]})`,
      );
    }
    o[key] =
      key === 'seconds'
        ? Math.min(value, 600)
        : key === 'poll'
          ? Math.max(0.1, value)
          : key === 'rate'
            ? Math.min(value, 500)
            : Math.min(Math.floor(value), key === 'hosts' ? 10 : 500);
  }
  return o;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function healthy(url: string, what: string, child: ChildProcess): Promise<void> {
  for (let t = 0; ; t++) {
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (t > 150 || child.exitCode !== null) throw new Error(`${what} did not start`);
    await sleep(200);
  }
}

/** Follows the fleet's /v1/events from `since`: arrival time minus the record's stamp. */
function sseClient(base: string, since: number, signal: AbortSignal) {
  const got: Array<{ seq: number; host: string; hostSeq: number; latencyMs: number }> = [];
  const done = (async () => {
    try {
      const res = await fetch(`${base}/v1/events?since=${since}`, { signal });
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const now = Date.now();
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data || !/^id: /m.test(block)) continue;
          const r = JSON.parse(data) as { seq: number; at: string; host: string; hostSeq: number };
          got.push({
            seq: r.seq,
            host: r.host,
            hostSeq: r.hostSeq,
            latencyMs: now - Date.parse(r.at),
          });
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
  return { got, done };
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  // What else kept the machine busy before this run started.
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'pw-bench-fleet-'));
  const hosts = Array.from({ length: o.hosts }, (_, i) => `host-${String.fromCharCode(97 + i)}`);
  const socket = (h: string) => `pw-fleet-bench-${process.pid}-${h}`;
  const tmux = (h: string, ...args: string[]) =>
    execa('tmux', tmuxArgs(['-L', socket(h), '-f', '/dev/null', ...args]), {
      timeout: 10_000,
      env: tmuxEnv(),
      extendEnv: false,
    });
  const agent = `env STAND_IN_WORK_STEPS=6 ${AGENT}`;
  const children: ChildProcess[] = [];
  const sockets: string[] = [];
  const nats = new NatsServer(await freePort(), join(dir, 'nats'));
  const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      const gone = children.filter(running).map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of children) if (running(c)) c.kill('SIGTERM');
      await Promise.all(gone);
      await nats.stop();
      for (const h of hosts) await tmux(h, 'kill-server').catch(() => {});
      // tmux leaves its socket file behind when the server exits.
      for (const path of sockets) rmSync(path, { force: true });
      rmSync(dir, { recursive: true, force: true });
    })());
  // The listeners stay until the end (a once-listener would let execa's exit hook raise the
  // signal again and end the process before the cleanup); a second signal exits at once.
  const signals = untilStopSignal();
  void signals.stopped.then(() => cleanup().finally(() => process.exit(130)));
  try {
    const began = performance.now();
    await nats.start();
    const natsPid = nats.pid!;
    const edges: Array<{ host: string; url: string; pid: number; tmuxPid: number }> = [];
    for (const host of hosts) {
      await tmux(host, 'new-session', '-d', '-s', 'bench', '-x', '120', '-y', '30', agent);
      // Windows in batches of 50 per tmux call: one process per window is slow on a busy machine.
      for (let i = 1; i < o.panes; i += 50) {
        const n = Math.min(50, o.panes - i);
        const args = Array.from({ length: n }, () => ['new-window', '-d', '-t', 'bench:', agent]);
        await tmux(host, ...args.flatMap((a, k) => (k === 0 ? a : [';', ...a])));
      }
      const [pid = '', socketPath = ''] = (
        await tmux(host, 'display-message', '-p', '#{pid}\t#{socket_path}')
      ).stdout
        .trim()
        .split('\t');
      const tmuxPid = Number(pid);
      if (socketPath) sockets.push(socketPath);
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [
          BIN,
          'serve',
          '--port',
          String(port),
          '-L',
          socket(host),
          '--data-dir',
          join(dir, host),
          '--no-discover',
          '--poll-interval',
          String(o.poll),
          '--nats',
          nats.url,
          '--host-id',
          host,
          '--profile-module',
          PROFILES,
          '--log-level',
          'warn',
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await healthy(url, `edge ${host}`, child);
      const panes = (await tmux(host, 'list-panes', '-a', '-F', '#{pane_id}')).stdout
        .trim()
        .split('\n');
      // Ten attaches at a time (each waits for its pane's first look).
      for (let i = 0; i < panes.length; i += 10) {
        await Promise.all(
          panes.slice(i, i + 10).map(async (pane, k) => {
            const r = await fetch(`${url}/v1/terminals`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ target: pane, tool: 'stand_in', id: `p${i + k}` }),
            });
            if (r.status !== 201) throw new Error(`attach ${host} ${pane}: ${r.status}`);
          }),
        );
      }
      edges.push({ host, url, pid: child.pid!, tmuxPid });
      console.error(
        `${host}: ${o.panes} panes attached (${((performance.now() - began) / 1000).toFixed(0)} s)`,
      );
    }
    const fleetPort = await freePort();
    const fleet = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--fleet',
        '--nats',
        nats.url,
        '--port',
        String(fleetPort),
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    children.push(fleet);
    const fleetUrl = `http://127.0.0.1:${fleetPort}`;
    await healthy(fleetUrl, 'fleet server', fleet);
    // Every pane in the fleet, then a few seconds to settle.
    for (let t = 0; ; t++) {
      const list = (await (await fetch(`${fleetUrl}/v1/terminals`)).json()) as {
        terminals: unknown[];
      };
      if (list.terminals.length === o.hosts * o.panes) break;
      if (t > 300) throw new Error(`the fleet shows ${list.terminals.length} terminals`);
      await sleep(200);
    }
    await sleep(3000);

    const fleetHealth = async () =>
      (await (await fetch(`${fleetUrl}/healthz`)).json()) as { journal: { durableSeq: number } };
    const startSeq = (await fleetHealth()).journal.durableSeq;
    const stop = new AbortController();
    const client = sseClient(fleetUrl, startSeq, stop.signal);
    const cpu = () => ({
      at: performance.now(),
      nats: cpuSeconds(natsPid),
      fleet: cpuSeconds(fleet.pid!),
      edges: edges.map((e) => cpuSeconds(e.pid)),
      tmux: edges.map((e) => cpuSeconds(e.tmuxPid)),
    });
    const cpu0 = cpu();
    // Prompts to random panes at the given rate; a pane that is not ready refuses (409).
    const prompts = { sent: 0, accepted: 0, refused: 0 };
    const reasons = new Map<string, number>();
    const driveUntil = performance.now() + o.seconds * 1000;
    const inflight: Promise<void>[] = [];
    for (let n = 0; performance.now() < driveUntil; n++) {
      const e = edges[n % edges.length]!;
      const id = `p${Math.floor(Math.random() * o.panes)}`;
      prompts.sent += 1;
      inflight.push(
        fetch(`${e.url}/v1/terminals/${id}/input`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: `bench ${n}` }),
          signal: AbortSignal.timeout(10_000),
        }).then(
          async (r) => {
            if (r.status === 202) prompts.accepted++;
            else {
              prompts.refused++;
              const e = ((await r.json()) as { error?: { message?: string } }).error;
              const why = (e?.message ?? String(r.status)).replace(/\d+/g, 'N').slice(0, 80);
              reasons.set(why, (reasons.get(why) ?? 0) + 1);
            }
          },
          () => void prompts.refused++,
        ),
      );
      await sleep(1000 / o.rate);
    }
    await Promise.all(inflight);
    const cpu1 = cpu();
    const endSeq = (await fleetHealth()).journal.durableSeq;
    await sleep(3000);
    stop.abort();
    await client.done;

    // Stop the edges (each publishes what its journal holds before it exits), then compare.
    const exited = children.filter(running).map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of children) if (running(c)) c.kill('SIGTERM');
    await Promise.all(exited);
    const stream = await readStream(nats.url);
    const size = await streamSize(nats.url);
    const perHost = hosts.map((host) => {
      const journal = readRecords(journalDir(join(dir, host)), 0);
      const mine = stream.filter((m) => m.subject.split('.')[1] === host).map((m) => m.record.seq);
      const unique = new Set(mine).size === mine.length;
      const covered = journal.filter((r) => mine.includes(r.seq)).length;
      return { host, journal: journal.length, stream: mine.length, unique, covered };
    });

    const wall = (cpu1.at - cpu0.at) / 1000;
    const inWindow = client.got.filter((g) => g.seq <= endSeq);
    const lat = inWindow.map((g) => g.latencyMs).sort((a, b) => a - b);
    const orderOk = client.got.every((g, i) => i === 0 || g.seq > client.got[i - 1]!.seq);
    const p = (a: number, b: number) => ((100 * (b - a)) / wall).toFixed(1);
    const c = cpus();
    console.log(
      `machine: ${c[0]?.model ?? 'unknown'} × ${c.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${(await execa('tmux', ['-V'])).stdout}, ${(await execa('nats-server', ['--version'])).stdout.trim()}, load average before ${loadBefore.map((l) => l.toFixed(1)).join(' ')}, after ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `load: ${o.hosts} edges × ${o.panes} panes of a stand-in agent (control mode, a changing pane captured at most every ${o.poll} s), prompts at ${o.rate}/s (${prompts.accepted} turns started, ${prompts.refused} refused: pane busy), one fleet server, one SSE client on it, ${wall.toFixed(1)} s`,
    );
    console.log(`refusals: ${JSON.stringify(Object.fromEntries(reasons))}`);
    console.log(
      `published: ${endSeq - startSeq} records in the window, ${((endSeq - startSeq) / wall).toFixed(1)} records/s into the stream`,
    );
    console.log(
      `edge record → fleet SSE: ${lat.length} records, p50 ${pct(lat, 0.5).toFixed(0)} ms, p99 ${pct(lat, 0.99).toFixed(0)} ms, max ${(lat.at(-1) ?? NaN).toFixed(0)} ms; in stream order: ${orderOk}`,
    );
    console.log(
      `cpu (% of one core): ${edges.map((e, i) => `edge ${e.host} ${p(cpu0.edges[i]!, cpu1.edges[i]!)} %`).join(', ')}; fleet server ${p(cpu0.fleet, cpu1.fleet)} %; nats-server ${p(cpu0.nats, cpu1.nats)} %; tmux servers ${edges.map((_, i) => `${p(cpu0.tmux[i]!, cpu1.tmux[i]!)} %`).join(', ')}`,
    );
    for (const h of perHost) {
      console.log(
        `${h.host}: journal ${h.journal} records, stream ${h.stream}, each once: ${h.unique}, journal records in the stream: ${h.covered}`,
      );
    }
    const ok =
      orderOk &&
      perHost.every((h) => h.unique && h.covered === h.journal && h.stream === h.journal);
    console.log(
      `stream: ${size.messages} messages, ${size.bytes} bytes, ${(size.bytes / Math.max(1, size.messages)).toFixed(0)} bytes per record as stored`,
    );
    console.log(ok ? 'every journal record in the stream exactly once' : 'MISMATCH: see above');
    return ok ? 0 : 1;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:fleet failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
