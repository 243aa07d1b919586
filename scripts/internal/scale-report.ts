import { OBSERVER_LABELS } from './scale-observers.js';
import type { ObserverResult, Percentiles, ScaleReport } from './scale-run.js';

const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '∞');
const f0 = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '∞');

function secs(p: Percentiles | null): string {
  if (!p) return '–';
  const s = (v: number | null) => (v === null ? '>window' : v < 10 ? v.toFixed(2) : v.toFixed(1));
  return `${s(p.p50)} / ${s(p.p99)}`;
}

function latency(r: ObserverResult): string {
  if (!r.latency) return '–';
  if (r.latency.seen === 0) return `none of ${r.latency.printed} seen`;
  const l = r.latency;
  return `${f0(l.p50 ?? NaN)} / ${f0(l.p95 ?? NaN)} / ${f0(l.p99 ?? NaN)}`;
}

function ratio(v: number | null): string {
  return v === null ? '–' : v >= 10 ? `${v.toFixed(0)}×` : `${v.toFixed(1)}×`;
}

/** The report as Markdown: the machine, one table row per observer, then the targets. */
export function formatScaleReport(report: ScaleReport): string {
  const m = report.machine;
  const o = report.options;
  const lines = [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.kernel}; Node ${m.node}; ${m.tmux}`,
    `Load average at start: ${m.loadAtStart}. Run started ${report.startedAt}, took ${report.durationSeconds} s.`,
    `Panes ${o.cols}x${o.rows}; poll interval ${o.intervalMs} ms; ${o.seconds} s measured per observer after ${o.warmupSeconds} s of warm-up; busy = ${Math.round(o.busyShare * 100)} % of panes print a line a second; staggered = every pane prints a line every 10 s, phases staggered so 10 % print each second.`,
    'CPU from /proc, in % of one core. "tmux above idle" is the tmux server during the observer minus the mean of the no-observer windows just before and after it; "host" is every process on the machine. Ratios divide the loop\'s observer + tmux-above-idle CPU by this observer\'s; "at its nominal rate" projects the loop\'s measured cost per capture to every pane twice a second.',
    '',
    '| panes | load | observer | observer CPU % | tmux CPU % above idle | host CPU % | samples/s | interval per pane, busy p50 / p99 s | interval per pane, idle p50 / p99 s | output → sample p50 / p95 / p99 ms | RSS / pane KB | heap / pane KB | CPU vs loop | CPU vs loop at its nominal rate |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of report.rows) {
    lines.push(
      `| ${row.panes} | ${row.workload} | no observer (tmux server alone) | – | ${f1(row.baseline.tmuxCpuPct)} idle cost (${f1(row.baseline.tmuxCpuPctRange[0])}–${f1(row.baseline.tmuxCpuPctRange[1])}) | ${f1(row.baseline.hostCpuPct)} | – | – | – | – | – | – | – | – |`,
    );
    for (const r of row.observers) {
      lines.push(
        `| ${row.panes} | ${row.workload} | ${OBSERVER_LABELS[r.observer]} | ${f1(r.observerCpuPct)} | ${f1(r.tmuxAboveIdlePct)} | ${f1(r.hostCpuPct)} | ${f0(r.samplesPerSecond)} | ${secs(r.intervalBusy)} | ${secs(r.intervalIdle)}${r.unsampledPanes > 0 ? ` (${r.unsampledPanes} never)` : ''} | ${latency(r)} | ${f0(r.rssPerPaneKB)} | ${f1(r.heapPerPaneKB)} | ${ratio(r.cpuVsLoop)} | ${ratio(r.cpuVsLoopAtRate)} |`,
      );
    }
  }
  lines.push('', '| target | measured | met |', '| --- | --- | --- |');
  for (const t of report.targets) {
    lines.push(`| ${t.target} | ${t.measured} | ${t.met === null ? '–' : t.met ? 'yes' : 'no'} |`);
  }
  return lines.join('\n');
}
