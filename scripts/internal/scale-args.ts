import { parseArgs } from 'node:util';
import type { MachineInfo } from './scale-measure.js';
import type { ObserverName } from './scale-observers.js';

/**
 * idle: no pane prints; busy: a tenth of the panes print a line a second; staggered: every pane
 * prints a line every 10 s, phases staggered so a tenth of them print each second.
 */
export type Workload = 'idle' | 'busy' | 'staggered';

/** What one `bench:scale` run measures. */
export interface ScaleOptions {
  panes: number[];
  workloads: Workload[];
  observers: ObserverName[];
  /** Measured seconds per observer and for the no-observer baseline. */
  seconds: number;
  /** Unmeasured seconds after an observer starts. */
  warmupSeconds: number;
  /** The observers' poll interval. */
  intervalMs: number;
  /** Share of panes printing in the busy workload. */
  busyShare: number;
  cols: number;
  rows: number;
  /** The whole run is aborted (and cleaned up) after this long. */
  maxMinutes: number;
  json: boolean;
  /** Observe with the compiled code (dist/, `npm run build`), as users run it. */
  dist?: boolean;
  signal?: AbortSignal;
  /** Told about each step as it starts. */
  progress?: (line: string) => void;
}

/** Null stands for "more than the window" (a pane with no sample in it). */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface ObserverResult {
  observer: ObserverName;
  /** The observer's process and its children (tmux clients), % of one core. */
  observerCpuPct: number;
  /** The tmux server during the window, % of one core. */
  tmuxCpuPct: number;
  /** The tmux server with no observer: mean of the windows just before and after this one. */
  tmuxIdlePct: number;
  /** The tmux server above that. */
  tmuxAboveIdlePct: number;
  /** Every process on the host, % of one core (all cores count). */
  hostCpuPct: number;
  samples: number;
  samplesPerSecond: number;
  panes: number;
  /** Per pane: window / samples in it, in seconds; percentiles across panes. */
  intervalBusy: Percentiles | null;
  intervalIdle: Percentiles | null;
  /** Panes with no sample at all in the window. */
  unsampledPanes: number;
  /** From a line printed to the first sample showing it, ms (busy panes). */
  latency: (Percentiles & { seen: number; printed: number }) | null;
  rssPerPaneKB: number;
  heapPerPaneKB: number;
  /** Loop's (observer + tmux above idle) CPU over this observer's: how many times less. */
  cpuVsLoop: number | null;
  /**
   * The same against what the loop would cost at its nominal rate (every pane once per
   * interval), projected from its measured cost per capture: when the host cannot give the loop
   * that much CPU, the measured ratio is capped by the host, not by the loop's demand.
   */
  cpuVsLoopAtRate: number | null;
}

export interface RowResult {
  panes: number;
  workload: Workload;
  /**
   * No observer, measured before the first observer and after each one (same window length):
   * the tmux server's mean and range, and the host's mean.
   */
  baseline: { tmuxCpuPct: number; tmuxCpuPctRange: [number, number]; hostCpuPct: number };
  observers: ObserverResult[];
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}

export interface ScaleReport {
  machine: MachineInfo;
  options: Omit<ScaleOptions, 'signal' | 'progress' | 'json'>;
  startedAt: string;
  durationSeconds: number;
  rows: RowResult[];
  targets: TargetCheck[];
}

export const SCALE_USAGE = `usage: npm run bench:scale -- [options]
  --panes LIST       pane counts, comma separated (default 100,500,1000)
  --workloads LIST   idle, busy (10 % of panes print a line a second), staggered (every pane
                     prints a line every 10 s, phases staggered: 10 % print each second)
                     (default idle,busy)
  --observers LIST   supervisor (the whole of paneward, to public state), control, polling,
                     loop (default all four, in that order)
  --seconds N        measured seconds per observer and for the baseline (default 15)
  --warmup N         unmeasured seconds after an observer starts (default 3)
  --interval MS      the observers' poll interval (default 500)
  --max-minutes N    abort the whole run after N minutes (default 30)
  --dist             observe with the compiled code (run \`npm run build\` first), as users
                     run it: through tsx every closure carries a name of its own (~250 bytes)
  --json             print one JSON object instead of the table
Quick run: npm run bench:scale -- --panes 50 --seconds 5`;

function list<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T[],
): T[] {
  if (value === undefined) return fallback;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.find((i) => !allowed.includes(i as T));
  if (bad !== undefined || items.length === 0) {
    throw new Error(`--${name} takes ${allowed.join(', ')}: ${value}`);
  }
  return items as T[];
}

function number(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new Error(`--${name} needs a number from ${min} to ${max}: ${value}`);
  }
  return n;
}

/** Parses the command line; throws with a message on a bad option. */
export function parseScaleArgs(argv: readonly string[]): ScaleOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      panes: { type: 'string' },
      workloads: { type: 'string' },
      observers: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      interval: { type: 'string' },
      'max-minutes': { type: 'string' },
      json: { type: 'boolean', default: false },
      dist: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const panes =
    values.panes === undefined
      ? [100, 500, 1000]
      : values.panes.split(',').map((p) => number('panes', p.trim(), 0, 1, 2000));
  if (panes.some((p) => !Number.isInteger(p)))
    throw new Error(`--panes takes whole numbers: ${values.panes}`);
  return {
    panes,
    workloads: list('workloads', values.workloads, ['idle', 'busy', 'staggered'], ['idle', 'busy']),
    observers: list(
      'observers',
      values.observers,
      ['supervisor', 'control', 'polling', 'loop'],
      ['supervisor', 'control', 'polling', 'loop'],
    ),
    seconds: number('seconds', values.seconds, 15, 1, 600),
    warmupSeconds: number('warmup', values.warmup, 3, 0, 120),
    intervalMs: number('interval', values.interval, 500, 50, 10_000),
    busyShare: 0.1,
    cols: 160,
    rows: 45,
    maxMinutes: number('max-minutes', values['max-minutes'], 30, 1, 240),
    json: values.json,
    dist: values.dist,
  };
}
