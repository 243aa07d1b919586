import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { execa } from 'execa';
import {
  CLOCK_TICKS,
  hostJiffies,
  machineInfo,
  memoryAfterGc,
  percentileOf,
  processCpuSeconds,
  processRssBytes,
  reapedChildrenCpuSeconds,
  selfCpuSeconds,
} from './scale-measure.js';
import { SampleLog, startObserver, type ObserverName } from './scale-observers.js';
import { startFleet, type Fleet } from './scale-tmux.js';
import type {
  ObserverResult,
  Percentiles,
  RowResult,
  ScaleOptions,
  ScaleReport,
  TargetCheck,
  Workload,
} from './scale-args.js';

export {
  parseScaleArgs,
  SCALE_USAGE,
  type ObserverResult,
  type Percentiles,
  type RowResult,
  type ScaleOptions,
  type ScaleReport,
  type TargetCheck,
  type Workload,
} from './scale-args.js';

const STAGGER_SECONDS = 10;

/** Panes a short warm-up run of each observer watches before its heap is measured. */
const WARM_PANES = 20;

/** Runs every row; always kills the fleet's tmux server, also when aborted. */
export async function runScale(options: ScaleOptions): Promise<ScaleReport> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(options.maxMinutes * 60_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const tmuxVersion = (
    await execa('tmux', ['-V'], { stdin: 'ignore', timeout: 5000 })
  ).stdout.trim();
  const machine = machineInfo(tmuxVersion);
  const rows: RowResult[] = [];
  const say = options.progress ?? (() => undefined);
  for (const panes of options.panes) {
    for (const workload of options.workloads) {
      signal.throwIfAborted();
      const socketName = `pw-scale-bench-${process.pid}-${randomBytes(3).toString('hex')}`;
      say(`${panes} panes, ${workload}: starting the panes`);
      const fleet = await startFleet({
        socketName,
        count: panes,
        busyShare: workload === 'busy' ? options.busyShare : workload === 'staggered' ? 1 : 0,
        periodSeconds: workload === 'staggered' ? STAGGER_SECONDS : 1,
        cols: options.cols,
        rows: options.rows,
        signal,
      });
      try {
        // Let every pane draw its screen before anything is measured.
        await sleep(Math.min(10, 1 + panes / 200) * 1000, signal);
        // The tmux server's own cost drifts with the host's load: it is measured with no
        // observer before and after each observer, which is charged only what it added.
        const idle = async () => {
          say(`${panes} panes, ${workload}: no observer, ${options.seconds} s`);
          return measureBaseline(fleet, options.seconds, signal);
        };
        const baselines = [await idle()];
        const results: ObserverResult[] = [];
        for (const name of options.observers) {
          say(
            `${panes} panes, ${workload}: ${name}, ${options.warmupSeconds} + ${options.seconds} s`,
          );
          const r = await measureObserver(name, fleet, options, signal);
          await sleep(1000, signal);
          const before = baselines.at(-1)!;
          const after = await idle();
          baselines.push(after);
          r.tmuxIdlePct = (before.tmuxCpuPct + after.tmuxCpuPct) / 2;
          r.tmuxAboveIdlePct = Math.max(0, r.tmuxCpuPct - r.tmuxIdlePct);
          results.push(r);
        }
        addRatios(results, options.intervalMs);
        const tmuxIdle = baselines.map((b) => b.tmuxCpuPct);
        rows.push({
          panes,
          workload,
          baseline: {
            tmuxCpuPct: mean(tmuxIdle),
            tmuxCpuPctRange: [Math.min(...tmuxIdle), Math.max(...tmuxIdle)],
            hostCpuPct: mean(baselines.map((b) => b.hostCpuPct)),
          },
          observers: results,
        });
      } finally {
        await fleet.close();
      }
    }
  }
  const { signal: _s, progress: _p, json: _j, ...rest } = options;
  return {
    machine,
    options: rest,
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    durationSeconds: Math.round((performance.now() - started) / 1000),
    rows,
    targets: checkTargets(rows),
  };
}

async function measureBaseline(
  fleet: Fleet,
  seconds: number,
  signal: AbortSignal,
): Promise<{ tmuxCpuPct: number; hostCpuPct: number }> {
  const tmux0 = processCpuSeconds(fleet.serverPid) ?? 0;
  const host0 = hostJiffies();
  const t0 = performance.now();
  await sleep(seconds * 1000, signal);
  const wall = (performance.now() - t0) / 1000;
  const tmux1 = processCpuSeconds(fleet.serverPid) ?? tmux0;
  const host1 = hostJiffies();
  return {
    tmuxCpuPct: pct(tmux1 - tmux0, wall),
    hostCpuPct: hostPct(host0, host1, wall),
  };
}

async function measureObserver(
  name: ObserverName,
  fleet: Fleet,
  options: ScaleOptions,
  signal: AbortSignal,
): Promise<ObserverResult> {
  const n = fleet.panes.length;
  // A short run of the same observer over a few panes first: the modules it loads and the code
  // it compiles are paid once per process, not per terminal, and are not charged to the panes.
  const few = fleet.panes.slice(0, Math.min(WARM_PANES, n));
  const warm = await startObserver(name, {
    socketName: fleet.socketName,
    panes: few,
    dist: options.dist ?? false,
    intervalMs: options.intervalMs,
    log: new SampleLog(few),
  });
  await sleep(2000, signal).finally(() => warm.stop());
  const log = new SampleLog(fleet.panes);
  const mem0 = memoryAfterGc();
  // PW_HEAP_SNAPSHOTS=<dir>: heap snapshots where the heap is measured, to see what a pane holds.
  const snapshots = process.env.PW_HEAP_SNAPSHOTS;
  if (snapshots) writeHeapSnapshot(join(snapshots, `${name}-${n}-0.heapsnapshot`));
  const observer = await startObserver(name, {
    socketName: fleet.socketName,
    panes: fleet.panes,
    dist: options.dist ?? false,
    intervalMs: options.intervalMs,
    log,
  });
  try {
    await sleep(options.warmupSeconds * 1000, signal);
    const kids = observer.childPids();
    const kidCpu = () => kids.reduce((sum, pid) => sum + (processCpuSeconds(pid) ?? 0), 0);
    const cpu0 = selfCpuSeconds() + reapedChildrenCpuSeconds() + kidCpu();
    const tmux0 = processCpuSeconds(fleet.serverPid) ?? 0;
    const host0 = hostJiffies();
    const t0 = performance.now();
    await sleep(options.seconds * 1000, signal);
    const t1 = performance.now();
    const cpu1 = selfCpuSeconds() + reapedChildrenCpuSeconds() + kidCpu();
    const tmux1 = processCpuSeconds(fleet.serverPid) ?? tmux0;
    const host1 = hostJiffies();
    const wall = (t1 - t0) / 1000;
    const mem1 = memoryAfterGc();
    if (snapshots) writeHeapSnapshot(join(snapshots, `${name}-${n}-1.heapsnapshot`));
    const kidRss = kids.reduce((sum, pid) => sum + (processRssBytes(pid) ?? 0), 0);

    let samples = 0;
    const busyIntervals: number[] = [];
    const idleIntervals: number[] = [];
    let unsampled = 0;
    const latencies: number[] = [];
    let busyPanes = 0;
    fleet.panes.forEach((pane, i) => {
      const inWindow = log.times[i]!.filter((t) => t >= t0 && t <= t1).length;
      samples += inWindow;
      if (inWindow === 0) unsampled += 1;
      (pane.busy ? busyIntervals : idleIntervals).push(inWindow > 0 ? wall / inWindow : Infinity);
      if (pane.busy) {
        busyPanes += 1;
        for (const [at, ms] of log.latencies[i]!) if (at >= t0 && at <= t1) latencies.push(ms);
      }
    });
    const observerCpuPct = pct(cpu1 - cpu0, wall);
    const tmuxCpuPct = pct(tmux1 - tmux0, wall);
    return {
      observer: name,
      observerCpuPct,
      tmuxCpuPct,
      // Set by the caller once the window after this one is measured.
      tmuxIdlePct: 0,
      tmuxAboveIdlePct: 0,
      hostCpuPct: hostPct(host0, host1, wall),
      samples,
      samplesPerSecond: samples / wall,
      panes: n,
      intervalBusy: percentiles(busyIntervals),
      intervalIdle: percentiles(idleIntervals),
      unsampledPanes: unsampled,
      latency:
        busyPanes > 0
          ? {
              ...(percentiles(latencies) ?? { p50: null, p95: null, p99: null }),
              seen: latencies.length,
              printed: Math.round((busyPanes * wall) / fleet.periodSeconds),
            }
          : null,
      rssPerPaneKB: (Math.max(0, mem1.rss - mem0.rss) + kidRss) / n / 1024,
      heapPerPaneKB: Math.max(0, mem1.heapUsed - mem0.heapUsed) / n / 1024,
      cpuVsLoop: null,
      cpuVsLoopAtRate: null,
    };
  } finally {
    await observer.stop();
  }
}

const total = (r: ObserverResult) => r.observerCpuPct + r.tmuxAboveIdlePct;

function addRatios(results: ObserverResult[], intervalMs: number): void {
  const loop = results.find((r) => r.observer === 'loop');
  if (!loop) return;
  // What the loop would use sampling every pane once per interval, at its measured cost.
  const atRate =
    loop.samplesPerSecond > 0
      ? Math.max(
          total(loop),
          (total(loop) / loop.samplesPerSecond) * loop.panes * (1000 / intervalMs),
        )
      : null;
  for (const r of results) {
    r.cpuVsLoop = total(r) > 0 ? total(loop) / total(r) : null;
    r.cpuVsLoopAtRate = atRate !== null && total(r) > 0 ? atRate / total(r) : null;
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

function checkTargets(rows: RowResult[]): TargetCheck[] {
  // The targets are the supervisor's (the whole of paneward to its public state) when it was
  // measured, else the control-mode source's alone.
  const measured = rows.some((r) => r.observers.some((o) => o.observer === 'supervisor'))
    ? 'supervisor'
    : 'control';
  const control = (panes: number, workload: Workload) =>
    rows
      .find((r) => r.panes === panes && r.workload === workload)
      ?.observers.find((o) => o.observer === measured);
  const out: TargetCheck[] = [];
  const at1000 = control(1000, 'staggered');
  out.push({
    target: `1000 panes, each a line every 10 s, staggered: ${measured} + tmux above idle ≤ 20 % of one core`,
    measured: at1000 ? `${total(at1000).toFixed(1)} %` : 'not measured in this run',
    met: at1000 ? total(at1000) <= 20 : null,
  });
  const lat = at1000?.latency?.p95 ?? null;
  out.push({
    target: `1000 panes, staggered: output-to-${measured === 'supervisor' ? 'state' : 'sample'} p95 ≤ 250 ms`,
    measured: lat === null ? 'not measured in this run' : `${lat.toFixed(0)} ms`,
    met: lat === null ? null : lat <= 250,
  });
  const ratios = rows.flatMap((r) =>
    r.observers.filter((o) => o.observer === measured && o.cpuVsLoop !== null),
  );
  const worst = ratios.length > 0 ? Math.min(...ratios.map((o) => o.cpuVsLoop!)) : null;
  const worstAtRate =
    ratios.length > 0 ? Math.min(...ratios.map((o) => o.cpuVsLoopAtRate ?? Infinity)) : null;
  out.push({
    target: '≥ 20× less CPU than the capture-pane loop, same panes, same run (every row)',
    measured:
      worst === null
        ? 'not measured in this run'
        : `worst row ${worst.toFixed(1)}× as measured; ${worstAtRate!.toFixed(1)}× against the loop's cost at its nominal rate`,
    met: worst === null ? null : worst >= 20,
  });
  const heaps = (['idle', 'busy', 'staggered'] as const).flatMap((w) => control(1000, w) ?? []);
  const heap = heaps.length > 0 ? Math.max(...heaps.map((o) => o.heapPerPaneKB)) : null;
  // With the charts as the terminal's child actors on every path (docs/scale.md).
  out.push({
    target: '≤ 45 KB retained heap per terminal at 1000 terminals',
    measured: heap === null ? 'not measured in this run' : `${heap.toFixed(1)} KB`,
    met: heap === null ? null : heap <= 45,
  });
  return out;
}

function percentiles(values: number[]): Percentiles | null {
  if (values.length === 0) return null;
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  return {
    p50: finite(percentileOf(values, 0.5)),
    p95: finite(percentileOf(values, 0.95)),
    p99: finite(percentileOf(values, 0.99)),
  };
}

function pct(cpuSeconds: number, wallSeconds: number): number {
  return wallSeconds > 0 ? (100 * cpuSeconds) / wallSeconds : 0;
}

function hostPct(
  a: { busy: number; total: number },
  b: { busy: number; total: number },
  wall: number,
): number {
  // Busy jiffies are summed over every core: in % of one core, a busy 2-core host reads 200.
  return wall > 0 ? (100 * (b.busy - a.busy)) / CLOCK_TICKS / wall : 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
