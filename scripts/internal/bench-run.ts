import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchPipeline, listRecordings, loadRecording } from './bench-pipeline.js';
import { benchProbe } from './bench-probe.js';
import { probeToFrameRatio, type BenchReport } from './bench-report.js';

/** What one bench run measures. */
export interface BenchOptions {
  /** Recording files to feed the pipeline. */
  files: string[];
  passes: number;
  warmupPasses: number;
  /** 0 skips the probe measurement. */
  probes: number;
  includeAnsi: boolean;
  json: boolean;
  signal?: AbortSignal;
}

export const DEFAULT_FIXTURES = fileURLToPath(new URL('../../test/fixtures', import.meta.url));

export const BENCH_USAGE = `usage: npm run bench -- [options]
  --passes N     measured passes over every recording (default 20)
  --warmup N     unmeasured warm-up passes (default 2)
  --probes N     measured tmux probes; 0 skips the probe measurement (default 200)
  --ansi         probe with the ANSI capture too
  --fixtures D   recordings folder, <D>/<tool>/*.jsonl (default test/fixtures)
  --json         print one JSON object instead of tables`;

function count(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} needs an integer ≥ ${min}: ${value}`);
  return n;
}

/** Parses the command line; throws with a message on a bad option. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      passes: { type: 'string' },
      warmup: { type: 'string' },
      probes: { type: 'string' },
      ansi: { type: 'boolean', default: false },
      fixtures: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  return {
    files: listRecordings(values.fixtures ?? DEFAULT_FIXTURES),
    passes: count('passes', values.passes, 20, 1),
    warmupPasses: count('warmup', values.warmup, 2, 0),
    probes: count('probes', values.probes, 200, 0),
    includeAnsi: values.ansi,
    json: values.json,
  };
}

/** Runs the pipeline measurement, then (unless `probes` is 0) the probe measurement. */
export async function runBench(options: Omit<BenchOptions, 'json'>): Promise<BenchReport> {
  const recordings = options.files.map(loadRecording);
  const pipeline = benchPipeline(recordings, {
    passes: options.passes,
    warmupPasses: options.warmupPasses,
  });
  const probe =
    options.probes > 0
      ? await benchProbe({
          probes: options.probes,
          includeAnsi: options.includeAnsi,
          signal: options.signal,
        })
      : null;
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cpus: cpu.length,
    pipeline,
    probe,
    probeToFrameRatio: probe ? probeToFrameRatio(probe, pipeline) : null,
  };
}
