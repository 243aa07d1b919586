import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RecordingLine, type RecordingFrame } from '../../../src/schemas/recording.js';

/** One recorded Claude Code scenario: its frames, inputs and the fake server's request log. */
export interface Scenario {
  frames: RecordingFrame[];
  inputs: { t: number; text: string }[];
  probes: { t: number; transport: string }[];
  /** Recording time (seconds) of an epoch-ms instant from the server log. */
  tOf(epochMs: number): number;
  /** Last frame at or before `t` (seconds). */
  at(t: number): RecordingFrame;
  last(): RecordingFrame;
  /** Frames whose text matches `re`. */
  matching(re: RegExp): RecordingFrame[];
  /** Frames with `from <= t < to`. */
  between(from: number, to: number): RecordingFrame[];
}

const DIR = resolve('test/fixtures/claude_code');

/** Loads `test/fixtures/claude_code/<name>.jsonl`. */
export function loadScenario(name: string): Scenario {
  const lines = readFileSync(`${DIR}/${name}.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => RecordingLine.parse(JSON.parse(l)));
  const frames = lines.filter((l): l is RecordingFrame => l.type === 'frame');
  if (frames.length === 0) throw new Error(`${name}: no frames`);
  const header = lines[0];
  const started = header?.type === 'header' ? Number(header.startedAtEpochMs) : NaN;
  return {
    frames,
    tOf: (epochMs) => (epochMs - started) / 1000,
    inputs: lines.flatMap((l) => (l.type === 'input' ? [{ t: l.t, text: l.text }] : [])),
    probes: lines.flatMap((l) => (l.type === 'probe' ? [{ t: l.t, transport: l.transport }] : [])),
    at(t) {
      const before = frames.filter((f) => f.t <= t);
      if (before.length === 0) throw new Error(`${name}: no frame at ${t}`);
      return before[before.length - 1]!;
    },
    last: () => frames[frames.length - 1]!,
    matching: (re) => frames.filter((f) => re.test(f.text)),
    between: (from, to) => frames.filter((f) => f.t >= from && f.t < to),
  };
}

/** Server log entries (epoch ms) of a scenario, for ground-truth timing. */
export function loadServerLog(name: string): {
  receivedAt: number;
  firstByteAt: number | null;
  endedAt: number | null;
  outcome: string;
  status: number;
}[] {
  return readFileSync(`${DIR}/${name}.server.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}
