import { STALE_ACTIVE_MARGIN_SECONDS } from '../../machines/turnPhase.js';
import { PanewardError } from '../errors.js';
import { parseJsonLine, readJsonLines } from '../internal/jsonl.js';
import { VirtualClock } from '../kernel/virtual-time.js';
import { getProfile } from '../profiles/index.js';
import type { KernelConfig, KernelConfigInput } from '../schemas/kernel.js';
import {
  RecordingHeader,
  RecordingLine,
  type RecordingFrame,
  type RecordingInput,
  type RecordingProbe,
} from '../schemas/recording.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { TerminalPipeline } from '../terminal/pipeline.js';

export interface ReplayOptions {
  config?: KernelConfigInput & { sessionWallClockSeconds?: number };
  terminalId?: string;
}

/** A validated recording: its header and its polls and inputs in time order. */
export interface ParsedRecording {
  header: RecordingHeader;
  lines: Array<RecordingFrame | RecordingInput | RecordingProbe>;
}

const KNOWN_TYPES = new Set(['header', 'frame', 'input', 'probe']);

/**
 * Validates a recording (docs/contracts.md §2): a header first, then lines whose time never goes
 * back. Unknown line types are skipped; a bad line throws naming the line and the field.
 */
export function parseRecording(lines: Array<[number, string]>): ParsedRecording {
  const { recording, error } = parseUntilError(lines);
  if (error !== null) throw error;
  return recording;
}

/**
 * Everything valid before the first bad line, and that line's error (null when none). Throws
 * when there is nothing to play: no lines, or no valid header.
 */
function parseUntilError(lines: Array<[number, string]>): {
  recording: ParsedRecording;
  error: PanewardError | null;
} {
  const first = lines[0];
  if (!first) throw new PanewardError('invalid_recording', 'the recording is empty');
  const header = parseJsonLine(RecordingHeader, first[0], first[1], 'invalid_recording');
  const recording: ParsedRecording = { header, lines: [] };
  let lastT = 0;
  try {
    for (const [lineNumber, text] of lines.slice(1)) {
      const type = peekType(text);
      if (type !== undefined && !KNOWN_TYPES.has(type)) continue;
      const line = parseJsonLine(RecordingLine, lineNumber, text, 'invalid_recording');
      if (line.type === 'header') {
        throw new PanewardError(
          'invalid_recording',
          `line ${lineNumber}: field \`type\`: a second header`,
        );
      }
      if (line.t < lastT) {
        throw new PanewardError(
          'invalid_recording',
          `line ${lineNumber}: field \`t\`: time went backwards (${line.t} < ${lastT})`,
        );
      }
      lastT = line.t;
      recording.lines.push(line);
    }
  } catch (err) {
    return { recording, error: err as PanewardError };
  }
  return { recording, error: null };
}

/** A pipeline for a recording, on its own virtual clock. */
export function pipelineFor(
  rec: ParsedRecording,
  options: ReplayOptions = {},
): { pipeline: TerminalPipeline; clock: VirtualClock } {
  const clock = new VirtualClock();
  const pipeline = new TerminalPipeline({
    terminalId: options.terminalId ?? 'replay',
    profile: getProfile(rec.header.tool, rec.header.toolVersion),
    toolVersion: rec.header.toolVersion,
    config: options.config,
    scheduler: clock.scheduler,
    // The session budget arms the watchdog when the session starts, at the first poll.
    ...(options.config?.sessionWallClockSeconds
      ? { watchdogBudgetSeconds: options.config.sessionWallClockSeconds }
      : {}),
  });
  return { pipeline, clock };
}

/**
 * Plays a recording into a pipeline, as live supervision would have seen it: the session starts
 * with the first poll, time moves (firing due timers) before each line, and the windows due
 * after the last line (stability, settle) play out. `onFirstLine` runs once the session started.
 */
export function playRecording(
  rec: ParsedRecording,
  pipeline: TerminalPipeline,
  clock: VirtualClock,
  hooks: { onFirstLine?: () => void; frame?: (run: () => void) => void } = {},
): void {
  const runFrame = hooks.frame ?? ((run: () => void) => run());
  let lastT = 0;
  rec.lines.forEach((line, i) => {
    if (i === 0) {
      pipeline.startSession(line.t);
      hooks.onFirstLine?.();
    }
    lastT = line.t;
    clock.advanceTo(line.t);
    if (line.type === 'frame') {
      runFrame(() => pipeline.frame(line.t, { text: line.text, ansi: line.ansi }, line));
    } else if (line.type === 'probe') {
      pipeline.probe(line.t, line);
    } else {
      pipeline.submit(line.t);
    }
  });
  const c = pipeline.kernel.config;
  const tail = lastT + Math.max(c.stabilitySeconds + c.settleSeconds, staleActiveSecondsOf(c));
  clock.advanceTo(tail);
  pipeline.advance(tail);
}

/**
 * Replays a terminal recording (docs/contracts.md §2) through the same pipeline live supervision
 * uses, on virtual time, handing each public-state change to `print`. Deterministic. Lines
 * are validated as they come, so every state before a bad line is still printed.
 */
export function replayRecording(
  lines: Array<[number, string]>,
  print: (state: TerminalState) => void,
  options: ReplayOptions = {},
): TerminalState | null {
  // Play what is valid up to a bad line, then report that line.
  const { recording, error } = parseUntilError(lines);
  const { pipeline, clock } = pipelineFor(recording, options);
  // The session starts with the first poll; its state is printed with that poll's.
  let started = false;
  const sub = pipeline.state$.subscribe((s) => started && print(s));
  try {
    playRecording(recording, pipeline, clock, { onFirstLine: () => (started = true) });
    if (error) throw error;
    return pipeline.state;
  } finally {
    sub.unsubscribe();
    pipeline.dispose();
  }
}

/** The stale-active window a configuration gives (its default follows the settle window). */
export function staleActiveSecondsOf(c: KernelConfig): number {
  return c.staleActiveSeconds ?? c.settleSeconds + STALE_ACTIVE_MARGIN_SECONDS;
}

function peekType(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { type?: unknown };
    return typeof v.type === 'string' ? v.type : undefined;
  } catch {
    // Not JSON, or JSON null: parsing the line reports it.
  }
  return undefined;
}

export { readJsonLines };
