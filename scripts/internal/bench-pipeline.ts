import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readJsonLines } from '../../src/internal/jsonl.js';
import { getProfile } from '../../src/profiles/index.js';
import type { RecordingFrame } from '../../src/schemas/recording.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  type ParsedRecording,
} from '../../src/replay/replay.js';
import { elapsedNs, summarize } from './bench-stats.js';

/** One recording, validated once so that parsing JSON is not part of what is measured. */
export interface BenchRecording extends ParsedRecording {
  /** `<tool>/<scenario>` as found under the fixtures folder. */
  name: string;
}

/** Timing of one kind of call, in microseconds. */
export interface CallStats {
  /** Calls measured (over every measured pass). */
  count: number;
  medianUs: number;
  p99Us: number;
  meanUs: number;
}

/** Pipeline cost of one group of recordings (one tool, or all of them). */
export interface PipelineGroupResult {
  recordings: number;
  /** `frame` lines per pass. */
  framesPerPass: number;
  /** Every `TerminalPipeline.frame()` call. */
  frame: CallStats & { framesPerSecond: number };
  /** `profile.parse` alone, on the frames the pipeline parses (tmux up, TUI not down). */
  parse: CallStats & {
    /** Total parse time over total `frame()` time. */
    shareOfFrame: number;
  };
}

/** Result of {@link benchPipeline}. */
export interface PipelineBenchResult {
  passes: number;
  warmupPasses: number;
  overall: PipelineGroupResult;
  byTool: Record<string, PipelineGroupResult>;
}

/** Options for {@link benchPipeline}. */
export interface PipelineBenchOptions {
  /** Measured passes over every recording; default 10. */
  passes?: number;
  /** Unmeasured passes first (JIT warm-up); default 2. */
  warmupPasses?: number;
}

/** Recordings (`*.jsonl`, not `*.server.jsonl`) under `<dir>/<tool>/`, sorted by name. */
export function listRecordings(dir: string): string[] {
  const files: string[] = [];
  for (const tool of readdirSync(dir, { withFileTypes: true })) {
    if (!tool.isDirectory()) continue;
    for (const f of readdirSync(join(dir, tool.name))) {
      if (f.endsWith('.jsonl') && !f.endsWith('.server.jsonl')) files.push(join(dir, tool.name, f));
    }
  }
  return files.sort();
}

/** Reads and validates one recording (contracts.md §2), as replay does. */
export function loadRecording(file: string): BenchRecording {
  const name = `${basename(join(file, '..'))}/${basename(file, '.jsonl')}`;
  return { name, ...parseRecording(readJsonLines(file)) };
}

/** True when the pipeline hands this frame to the profile (see `TerminalPipeline.frame`). */
function pipelineParses(line: RecordingFrame): boolean {
  return line.transport === 'tmux_up' && line.process !== 'tui_down';
}

/**
 * Feeds one recording through a fresh pipeline on virtual time, exactly as replay does, and
 * appends the duration (ns) of each `frame()` call to `out`.
 */
export function runPipeline(rec: BenchRecording, out: number[]): void {
  const { pipeline, clock } = pipelineFor(rec, { terminalId: 'bench' });
  // Replay keeps one subscriber on the state stream; so does the bench.
  const sub = pipeline.state$.subscribe(() => undefined);
  try {
    playRecording(rec, pipeline, clock, {
      frame: (run) => {
        const start = process.hrtime.bigint();
        run();
        out.push(elapsedNs(start));
      },
    });
  } finally {
    sub.unsubscribe();
    pipeline.dispose();
  }
}

/** Times `profile.parse` alone on the frames the pipeline would parse. */
function runParse(rec: BenchRecording, out: number[]): void {
  const profile = getProfile(rec.header.tool, rec.header.toolVersion);
  for (const line of rec.lines) {
    if (line.type !== 'frame' || !pipelineParses(line)) continue;
    const screen = { text: line.text, ansi: line.ansi };
    const start = process.hrtime.bigint();
    profile.parse(screen);
    out.push(elapsedNs(start));
  }
}

function callStats(samplesNs: readonly number[]): CallStats & { totalNs: number } {
  const s = summarize(samplesNs);
  return {
    count: s.count,
    medianUs: s.median / 1000,
    p99Us: s.p99 / 1000,
    meanUs: s.mean / 1000,
    totalNs: s.total,
  };
}

function group(
  recs: readonly BenchRecording[],
  frameNs: readonly number[],
  parseNs: readonly number[],
): PipelineGroupResult {
  const { totalNs: frameTotal, ...frame } = callStats(frameNs);
  const { totalNs: parseTotal, ...parse } = callStats(parseNs);
  return {
    recordings: recs.length,
    framesPerPass: recs.reduce((n, r) => n + r.lines.filter((l) => l.type === 'frame').length, 0),
    frame: { ...frame, framesPerSecond: 1e6 / frame.meanUs },
    parse: { ...parse, shareOfFrame: parseTotal / frameTotal },
  };
}

/**
 * Per-frame cost of the whole pipeline over recordings, per tool and overall: `warmupPasses`
 * unmeasured passes, then `passes` measured ones, each feeding every recording through a
 * fresh pipeline and then timing `profile.parse` alone on the same frames.
 */
export function benchPipeline(
  recordings: readonly BenchRecording[],
  options: PipelineBenchOptions = {},
): PipelineBenchResult {
  const passes = options.passes ?? 10;
  const warmupPasses = options.warmupPasses ?? 2;
  if (recordings.length === 0) throw new Error('no recordings to measure');
  if (!(Number.isInteger(passes) && passes >= 1)) throw new Error(`passes must be ≥ 1: ${passes}`);

  const scratch: number[] = [];
  for (let i = 0; i < warmupPasses; i++) {
    for (const rec of recordings) {
      runPipeline(rec, scratch);
      runParse(rec, scratch);
    }
    scratch.length = 0;
  }

  const frameNs = recordings.map((): number[] => []);
  const parseNs = recordings.map((): number[] => []);
  for (let i = 0; i < passes; i++) {
    recordings.forEach((rec, j) => {
      runPipeline(rec, frameNs[j]!);
      runParse(rec, parseNs[j]!);
    });
  }

  const byTool: Record<string, PipelineGroupResult> = {};
  const tools = [...new Set(recordings.map((r) => r.header.tool))].sort();
  for (const tool of tools) {
    const idx = recordings.flatMap((r, j) => (r.header.tool === tool ? [j] : []));
    byTool[tool] = group(
      idx.map((j) => recordings[j]!),
      idx.flatMap((j) => frameNs[j]!),
      idx.flatMap((j) => parseNs[j]!),
    );
  }
  return {
    passes,
    warmupPasses,
    overall: group(recordings, frameNs.flat(), parseNs.flat()),
    byTool,
  };
}
