import type { PipelineBenchResult, PipelineGroupResult } from './bench-pipeline.js';
import type { ProbeBenchResult, ProbeStats } from './bench-probe.js';

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  node: string;
  platform: string;
  cpu: string;
  cpus: number;
  pipeline: PipelineBenchResult;
  probe: ProbeBenchResult | null;
  /** Median full-probe time over median pipeline frame time; null without a probe run. */
  probeToFrameRatio: number | null;
}

/** Median probe (ms) over median frame (µs), both as measured. */
export function probeToFrameRatio(probe: ProbeBenchResult, pipeline: PipelineBenchResult): number {
  return (probe.full.medianMs * 1000) / pipeline.overall.frame.medianUs;
}

const num = (v: number, digits = 1) =>
  v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function pipelineRow(name: string, g: PipelineGroupResult): string[] {
  return [
    name,
    String(g.recordings),
    String(g.frame.count),
    num(g.frame.medianUs),
    num(g.frame.p99Us),
    num(g.frame.meanUs),
    num(g.frame.framesPerSecond, 0),
    num(g.parse.medianUs),
    num(g.parse.p99Us),
    `${num(g.parse.shareOfFrame * 100)}%`,
  ];
}

function probeRow(name: string, s: ProbeStats): string[] {
  return [
    name,
    String(s.count),
    num(s.medianMs, 2),
    num(s.p99Ms, 2),
    num(s.meanMs, 2),
    num(s.probesPerSecond, 0),
  ];
}

/** The human-readable report. */
export function formatReport(r: BenchReport): string {
  const p = r.pipeline;
  const out: string[] = [
    `node ${r.node} on ${r.platform}, ${r.cpus} × ${r.cpu}`,
    '',
    `Pipeline frame() over the recorded fixtures: ${p.overall.framesPerPass} frames per pass, ` +
      `${p.passes} measured passes after ${p.warmupPasses} warm-up`,
    table(
      [
        'tool',
        'recs',
        'frames',
        'median µs',
        'p99 µs',
        'mean µs',
        'frames/s/core',
        'parse median µs',
        'parse p99 µs',
        'parse share',
      ],
      [
        ...Object.entries(p.byTool).map(([tool, g]) => pipelineRow(tool, g)),
        pipelineRow('all', p.overall),
      ],
    ),
    '(parse share: time in profile.parse alone over time in frame(), on the frames the pipeline parses)',
  ];
  if (r.probe) {
    const q = r.probe;
    out.push(
      '',
      `Probe (probePane, execa transport, ${q.tmuxVersion}, ${q.cols}x${q.rows} bash pane` +
        `${q.includeAnsi ? ', with ANSI capture' : ''})`,
      table(
        ['probe', 'count', 'median ms', 'p99 ms', 'mean ms', 'probes/s'],
        [probeRow('tmux call + /proc', q.full), probeRow('tmux call only', q.tmuxOnly)],
      ),
      '',
      `One full probe costs ${num(r.probeToFrameRatio ?? NaN, 0)}× one pipeline frame (median over median).`,
    );
  }
  return out.join('\n');
}
