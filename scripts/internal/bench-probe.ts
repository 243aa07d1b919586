import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { execa } from 'execa';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { probePane, type ProbeOptions } from '../../src/observe/probe.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import type { ProcessOutcome } from '../../src/schemas/probe.js';
import { elapsedNs, summarize } from './bench-stats.js';

/** Options for {@link benchProbe}. */
export interface ProbeBenchOptions {
  /** Measured probes; default 200. */
  probes?: number;
  /** Unmeasured probes first; default 5. */
  warmupProbes?: number;
  /** tmux `-L` socket; default a fresh `pw-bench-<pid>-<random>`. */
  socketName?: string;
  cols?: number;
  rows?: number;
  /** Also capture with escapes, as the supervisor's `includeAnsi` does. */
  includeAnsi?: boolean;
  signal?: AbortSignal;
}

/** Timing of one kind of probe, in milliseconds. */
export interface ProbeStats {
  /** Probes measured. */
  count: number;
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  /** Probes per second, one at a time (1000 / mean ms). */
  probesPerSecond: number;
}

/** Result of {@link benchProbe}. */
export interface ProbeBenchResult {
  cols: number;
  rows: number;
  includeAnsi: boolean;
  tmuxVersion: string;
  /** The probe the supervisor runs: one tmux call, then the /proc inspection for `bash`. */
  full: ProbeStats;
  /** The same probe without process names (no /proc inspection): the tmux round trip alone. */
  tmuxOnly: ProbeStats;
}

const SHELL_TEXT =
  "for i in $(seq 1 30); do printf 'line %02d: the quick brown fox jumps over the lazy dog\\n' $i; done";

/**
 * Cost of one `probePane` call through the execa transport: a dedicated tmux server with one
 * `cols`×`rows` pane running bash with a screen of text, probed `probes` times in sequence
 * (pane facts, capture and /proc inspection for `bash`), interleaved with as many probes that
 * skip the /proc inspection. The server is always killed.
 */
export async function benchProbe(options: ProbeBenchOptions = {}): Promise<ProbeBenchResult> {
  const probes = options.probes ?? 200;
  const warmupProbes = options.warmupProbes ?? 5;
  const cols = options.cols ?? 120;
  const rows = options.rows ?? 40;
  const includeAnsi = options.includeAnsi ?? false;
  const socketName =
    options.socketName ?? `pw-bench-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (!(Number.isInteger(probes) && probes >= 1)) throw new Error(`probes must be ≥ 1: ${probes}`);

  options.signal?.throwIfAborted();
  const tmuxVersion = (await execa('tmux', ['-V'], { stdin: 'ignore' })).stdout.trim();
  const start = await execa(
    'tmux',
    [
      '-L',
      socketName,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-P',
      '-F',
      '#{session_name}:#{window_index}.#{pane_index}\t#{socket_path}',
      '-s',
      'bench',
      '-x',
      String(cols),
      '-y',
      String(rows),
      '--',
      'env',
      '-i',
      `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      'TERM=tmux-256color',
      'PS1=$ ',
      'bash',
      '--norc',
      '--noprofile',
    ],
    { stdin: 'ignore', timeout: 5000, env: { TMUX: '' } },
  );
  const [target = '', socketPath = ''] = start.stdout.trim().split('\t');
  const transport = createExecaTransport({ socketName, timeoutMs: 5000 });
  try {
    await transport.run(['send-keys', '-t', target, '-l', '--', SHELL_TEXT]);
    await transport.run(['send-keys', '-t', target, 'Enter']);
    await waitForText(() => transport.run(['capture-pane', '-p', '-t', target]), /line 30:/);

    const full = { processNames: ['bash'], includeAnsi, signal: options.signal };
    const tmuxOnly = { processNames: [], includeAnsi, signal: options.signal };
    const fullNs: number[] = [];
    const tmuxOnlyNs: number[] = [];
    for (let i = 0; i < warmupProbes + probes; i++) {
      const a = await timeProbe(transport, target, full, 'tui_up', options.signal);
      const b = await timeProbe(transport, target, tmuxOnly, 'unsupported_tool', options.signal);
      if (i < warmupProbes) continue;
      fullNs.push(a);
      tmuxOnlyNs.push(b);
    }
    return {
      cols,
      rows,
      includeAnsi,
      tmuxVersion,
      full: probeStats(fullNs),
      tmuxOnly: probeStats(tmuxOnlyNs),
    };
  } finally {
    await transport.run(['kill-server']).catch(() => undefined);
    await transport.close();
    // tmux leaves its socket file behind when the server exits.
    if (socketPath) await rm(socketPath, { force: true });
  }
}

/** One probe's duration in ns; throws unless it saw the pane as expected. */
async function timeProbe(
  transport: TmuxTransport,
  target: string,
  options: ProbeOptions,
  expected: ProcessOutcome,
  signal: AbortSignal | undefined,
): Promise<number> {
  signal?.throwIfAborted();
  const begin = process.hrtime.bigint();
  const probe = await probePane(transport, target, options);
  const ns = elapsedNs(begin);
  if (probe.transport !== 'tmux_up' || probe.process !== expected) {
    throw new Error(`probe failed: ${probe.transport}/${probe.process} ${probe.error?.message}`);
  }
  return ns;
}

function probeStats(samplesNs: readonly number[]): ProbeStats {
  const s = summarize(samplesNs);
  return {
    count: s.count,
    medianMs: s.median / 1e6,
    p99Ms: s.p99 / 1e6,
    meanMs: s.mean / 1e6,
    probesPerSecond: 1e9 / s.mean,
  };
}

async function waitForText(capture: () => Promise<string>, re: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const screen = await capture();
    if (re.test(screen)) return;
    if (Date.now() > deadline) throw new Error(`${re} not on screen within 10 s:\n${screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
