import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  listRecordings,
  loadRecording,
  runPipeline,
  type BenchRecording,
} from './bench-pipeline.js';
import { elapsedNs, summarize } from './bench-stats.js';

/** Median, mean and 99th percentile of a set of calls, in microseconds. */
export interface FrameStats {
  count: number;
  medianUs: number;
  meanUs: number;
  p99Us: number;
}

/** Houmao's shared TUI tracker on the same frames (the recordings of the CLIs it reads). */
export interface HoumaoResult {
  dir: string;
  /** Tools it was fed (those it has a profile for). */
  tools: string[];
  /** Frames per pass. */
  frames: number;
  houmao: FrameStats;
  /** paneward on exactly these frames, in the same rounds. */
  paneward: FrameStats;
  /** houmao median over paneward median (and means): how many times faster paneward is. */
  medianRatio: number;
  meanRatio: number;
  /** The same per CLI. */
  byTool: Record<string, { houmao: FrameStats; paneward: FrameStats; medianRatio: number }>;
}

/** What one `npm run bench:frame` measured. */
export interface FrameBenchReport {
  machine: { cpu: string; cores: number; node: string; platform: string };
  rounds: number;
  warmupRounds: number;
  recordings: number;
  framesPerPass: number;
  overall: FrameStats;
  byTool: Record<string, FrameStats & { recordings: number; framesPerPass: number }>;
  /** The fixed plain-JS workload timed in the same rounds (one call). */
  reference: FrameStats & { what: string };
  /** paneward median frame over the reference median: comparable across runs and machines. */
  frameToReference: number;
  houmao: HoumaoResult | null;
}

/** Options for {@link runFrameBench}. */
export interface FrameBenchOptions {
  files: string[];
  rounds: number;
  warmupRounds: number;
  /** Stop adding recordings once a pass has this many frames (0: every recording). */
  maxFrames: number;
  /** Only these tools (empty: all). */
  tools: string[];
  /** A Houmao checkout to measure side by side (null: skip). */
  houmaoDir: string | null;
  python: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundled recordings: recordings/ then test/fixtures/, each distinct file once. */
export function bundledRecordings(): string[] {
  const seen = new Set<string>();
  const files: string[] = [];
  for (const dir of ['recordings', 'test/fixtures']) {
    for (const f of listRecordings(join(ROOT, dir))) {
      const digest = createHash('sha256').update(readFileSync(f)).digest('hex');
      if (seen.has(digest)) continue;
      seen.add(digest);
      files.push(f);
    }
  }
  return files;
}

// A fixed plain-JS workload: a JSON round trip of a fixed object and a sort of a fixed array.
const REFERENCE_DATA = Array.from({ length: 200 }, (_, i) => ({
  id: i,
  name: `item-${(i * 7919) % 997}`,
  tags: ['a', 'b', String(i % 13)],
  score: ((i * 2654435761) % 1000) / 7,
}));
const REFERENCE_NUMBERS = Array.from({ length: 500 }, (_, i) => (i * 2654435761) % 100003);
const REFERENCE_WHAT = 'JSON.parse(JSON.stringify(200 small objects)) + sort of 500 numbers';

function referenceCall(): number {
  const copy = JSON.parse(JSON.stringify(REFERENCE_DATA)) as typeof REFERENCE_DATA;
  const sorted = REFERENCE_NUMBERS.slice().sort((a, b) => a - b);
  return copy.length + sorted[0]!;
}

function stats(samplesNs: readonly number[]): FrameStats {
  const s = summarize(samplesNs);
  return { count: s.count, medianUs: s.median / 1000, meanUs: s.mean / 1000, p99Us: s.p99 / 1000 };
}

function frames(rec: BenchRecording): number {
  return rec.lines.filter((l) => l.type === 'frame').length;
}

/** Houmao's tracker in a Python child: one JSON line per `pass` asked for. */
class HoumaoChild {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  private stderr = '';

  constructor(dir: string, python: string, recordings: readonly BenchRecording[]) {
    this.child = spawn(python, [join(ROOT, 'scripts/internal/houmao-frames.py')], {
      env: { ...process.env, PANEWARD_HOUMAO_DIR: dir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
    const spec = recordings.map((r) => ({
      tool: r.header.tool,
      version: r.header.toolVersion ?? null,
      lines: r.lines.flatMap((l): Array<[number, string | null]> =>
        l.type === 'frame' ? [[l.t, l.text]] : l.type === 'input' ? [[l.t, null]] : [],
      ),
    }));
    this.child.stdin.write(JSON.stringify({ recordings: spec }) + '\n');
  }

  private async next(): Promise<Record<string, unknown>> {
    const r = await this.lines.next();
    if (r.done) throw new Error(`Houmao's tracker stopped: ${this.stderr.trim().slice(-2000)}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  }

  async ready(): Promise<void> {
    await this.next();
  }

  /** Per-frame nanoseconds of each recording, in the order given. */
  async pass(): Promise<number[][]> {
    this.child.stdin.write('pass\n');
    const r = await this.next();
    return r.ns as number[][];
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

const HOUMAO_TOOLS = new Set(['claude_code', 'codex']);

/**
 * Alternating rounds: each round feeds every recording through a fresh pipeline (per-frame
 * times), times the reference workload as many times, and (with a Houmao checkout) has Houmao's
 * tracker read the frames of the CLIs it knows. The first `warmupRounds` are not counted.
 */
export async function runFrameBench(o: FrameBenchOptions): Promise<FrameBenchReport> {
  let recordings = o.files.map(loadRecording);
  if (o.tools.length > 0) recordings = recordings.filter((r) => o.tools.includes(r.header.tool));
  if (o.maxFrames > 0) {
    const kept: BenchRecording[] = [];
    let n = 0;
    for (const r of recordings) {
      if (n >= o.maxFrames) break;
      kept.push(r);
      n += frames(r);
    }
    recordings = kept;
  }
  if (recordings.length === 0) throw new Error('no recordings to measure');
  const framesPerPass = recordings.reduce((n, r) => n + frames(r), 0);
  const houmaoRecs = recordings.filter((r) => HOUMAO_TOOLS.has(r.header.tool));
  const houmao =
    o.houmaoDir && houmaoRecs.length > 0
      ? new HoumaoChild(o.houmaoDir, o.python, houmaoRecs)
      : null;
  try {
    await houmao?.ready();
    const perRec = recordings.map((): number[] => []);
    const reference: number[] = [];
    const houmaoNs = houmaoRecs.map((): number[] => []);
    let sink = 0;
    for (let round = 0; round < o.warmupRounds + o.rounds; round++) {
      const counted = round >= o.warmupRounds;
      const scratch: number[] = [];
      recordings.forEach((rec, j) => runPipeline(rec, counted ? perRec[j]! : scratch));
      const calls = Math.max(50, Math.round(framesPerPass / 10));
      for (let i = 0; i < calls; i++) {
        const start = process.hrtime.bigint();
        sink += referenceCall();
        const ns = elapsedNs(start);
        if (counted) reference.push(ns);
      }
      if (houmao) {
        const ns = await houmao.pass();
        if (counted) ns.forEach((r, j) => houmaoNs[j]!.push(...r));
      }
    }
    if (sink === 0) throw new Error('reference workload did nothing');

    const byTool: FrameBenchReport['byTool'] = {};
    for (const tool of [...new Set(recordings.map((r) => r.header.tool))].sort()) {
      const idx = recordings.flatMap((r, j) => (r.header.tool === tool ? [j] : []));
      byTool[tool] = {
        recordings: idx.length,
        framesPerPass: idx.reduce((n, j) => n + frames(recordings[j]!), 0),
        ...stats(idx.flatMap((j) => perRec[j]!)),
      };
    }
    const overall = stats(perRec.flat());
    const ref = stats(reference);
    let houmaoResult: HoumaoResult | null = null;
    if (houmao && o.houmaoDir) {
      const same = stats(
        recordings.flatMap((r, j) => (HOUMAO_TOOLS.has(r.header.tool) ? perRec[j]! : [])),
      );
      const h = stats(houmaoNs.flat());
      const toolsSeen = [...new Set(houmaoRecs.map((r) => r.header.tool))].sort();
      const houmaoByTool: HoumaoResult['byTool'] = {};
      for (const tool of toolsSeen) {
        const hh = stats(
          houmaoRecs.flatMap((r, j) => (r.header.tool === tool ? houmaoNs[j]! : [])),
        );
        const pp = stats(recordings.flatMap((r, j) => (r.header.tool === tool ? perRec[j]! : [])));
        houmaoByTool[tool] = { houmao: hh, paneward: pp, medianRatio: hh.medianUs / pp.medianUs };
      }
      houmaoResult = {
        dir: o.houmaoDir,
        tools: [...new Set(houmaoRecs.map((r) => r.header.tool))].sort(),
        frames: houmaoRecs.reduce((n, r) => n + frames(r), 0),
        houmao: h,
        paneward: same,
        medianRatio: h.medianUs / same.medianUs,
        meanRatio: h.meanUs / same.meanUs,
        byTool: houmaoByTool,
      };
    }
    const cpu = cpus();
    return {
      machine: {
        cpu: cpuModel() ?? cpu[0]?.model.trim() ?? 'unknown',
        cores: cpu.length,
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      rounds: o.rounds,
      warmupRounds: o.warmupRounds,
      recordings: recordings.length,
      framesPerPass,
      overall,
      byTool,
      reference: { what: REFERENCE_WHAT, ...ref },
      frameToReference: overall.medianUs / ref.medianUs,
      houmao: houmaoResult,
    };
  } finally {
    houmao?.close();
  }
}

function cpuModel(): string | null {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    return m ? m[1]!.trim() : null;
  } catch {
    return null;
  }
}

const num = (v: number, digits = 1) =>
  v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The human-readable report. */
export function formatFrameReport(r: FrameBenchReport): string {
  const rows: string[][] = [
    ...Object.entries(r.byTool).map(([tool, g]) => [
      tool,
      String(g.recordings),
      String(g.framesPerPass),
      num(g.medianUs),
      num(g.meanUs),
      num(g.p99Us),
    ]),
    [
      'all',
      String(r.recordings),
      String(r.framesPerPass),
      num(r.overall.medianUs),
      num(r.overall.meanUs),
      num(r.overall.p99Us),
    ],
  ];
  const head = ['tool', 'recordings', 'frames/pass', 'median µs', 'mean µs', 'p99 µs'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [
    `machine: ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node} (${r.machine.platform})`,
    `TerminalPipeline.frame(), ${r.rounds} rounds after ${r.warmupRounds} warm-up:`,
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    `reference (${r.reference.what}): median ${num(r.reference.medianUs)} µs, mean ${num(r.reference.meanUs)} µs`,
    `frame / reference (medians): ${num(r.frameToReference, 3)}`,
  ];
  const h = r.houmao;
  if (h) {
    out.push(
      '',
      `Houmao's shared TUI tracker (${h.dir}) on the same ${h.frames} frames (${h.tools.join(', ')}):`,
      `  houmao    median ${num(h.houmao.medianUs)} µs  mean ${num(h.houmao.meanUs)} µs  p99 ${num(h.houmao.p99Us)} µs`,
      `  paneward  median ${num(h.paneward.medianUs)} µs  mean ${num(h.paneward.meanUs)} µs  p99 ${num(h.paneward.p99Us)} µs`,
      `  paneward is ${num(h.medianRatio)}× faster (medians), ${num(h.meanRatio)}× (means)`,
      ...Object.entries(h.byTool).map(
        ([tool, g]) =>
          `  ${tool}: houmao median ${num(g.houmao.medianUs)} µs, paneward ${num(g.paneward.medianUs)} µs: ${num(g.medianRatio)}×`,
      ),
    );
  } else {
    out.push('', 'Houmao: not measured (set PANEWARD_HOUMAO_DIR to a Houmao checkout)');
  }
  return out.join('\n');
}
