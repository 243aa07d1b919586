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
  type RecordingRecordPiece,
} from '../schemas/recording.js';
import type { RecordEvent, SessionRecordReader } from '../profiles/session-record.js';
import { sessionRecordReader } from '../profiles/session-records.js';
import { aroundReply, PieceReader } from '../sessions/pieces.js';
import { witnessConfigFor } from '../terminal/session-witness.js';
import type { CompletionAuthority } from '../terminal/witness.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { TurnPayload } from '../schemas/turn-payload.js';
import { TerminalPipeline } from '../terminal/pipeline.js';

export interface ReplayOptions {
  config?: KernelConfigInput & { sessionWallClockSeconds?: number };
  terminalId?: string;
  /**
   * Who decides a turn's outcome (docs/witness.md). Default: `both` when the recording holds
   * pieces of the session record and its tool has a reader, else the screen alone.
   */
  completionAuthority?: CompletionAuthority;
  /**
   * Read the recording as if its CLI said this version (default: the header's): how a release
   * nobody verified yet would be read, with the same screens.
   */
  toolVersion?: string;
  /** The strict gate (the profiles' `verifiedOnly`): a newer release is not read. */
  verifiedOnly?: boolean;
  /** Told each turn's payload as it changes (docs/contracts.md §6), as live supervision keeps it. */
  onPayload?: (payload: TurnPayload) => void;
}

/** A validated recording: its header and its polls and inputs in time order. */
export interface ParsedRecording {
  header: RecordingHeader;
  lines: Array<RecordingFrame | RecordingInput | RecordingProbe | RecordingRecordPiece>;
}

const KNOWN_TYPES = new Set(['header', 'frame', 'input', 'probe', 'record_piece']);

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
  const witness = replayWitness(rec, options.completionAuthority);
  const toolVersion = options.toolVersion ?? rec.header.toolVersion;
  const pipeline = new TerminalPipeline({
    terminalId: options.terminalId ?? 'replay',
    profile: getProfile(rec.header.tool, toolVersion, {
      verifiedOnly: options.verifiedOnly === true,
    }),
    toolVersion,
    config: options.config,
    scheduler: clock.scheduler,
    // The session budget arms the watchdog when the session starts, at the first poll.
    ...(options.config?.sessionWallClockSeconds
      ? { watchdogBudgetSeconds: options.config.sessionWallClockSeconds }
      : {}),
    ...(witness ? { witness } : {}),
    ...(options.onPayload ? { onPayload: options.onPayload } : {}),
  });
  return { pipeline, clock };
}

/** The reader of a recording's session record: the header's, else its tool's. */
function recordReaderOf(rec: ParsedRecording): SessionRecordReader | undefined {
  return sessionRecordReader(rec.header.sessionRecord?.reader ?? rec.header.tool);
}

/**
 * The completion witness a replay runs under: the one asked for, else `both` when the recording
 * holds session-record pieces. None (the screen alone) without a reader for the recording's
 * record, under `surface`, and for a recording without pieces when none was asked for, so old
 * recordings replay exactly as before.
 */
function replayWitness(rec: ParsedRecording, asked: CompletionAuthority | undefined) {
  const hasPieces = rec.lines.some((l) => l.type === 'record_piece');
  const authority = asked ?? (hasPieces ? 'both' : undefined);
  const reader = recordReaderOf(rec);
  if (authority === undefined || !reader) return undefined;
  return witnessConfigFor(reader.tool, authority);
}

/**
 * Plays a recording's session-record pieces into a pipeline as the live observer reports them:
 * the record is followed from its first piece (a piece of another file is another record: the
 * first is dropped, as after a CLI restart), each piece goes through the same reader as live, and
 * the first piece the reader does not know makes the witness step aside for good. A pipeline
 * without a completion witness ignores all of it.
 */
class PiecePlayer {
  private readonly files = new Map<string, PieceReader>();
  private current: string | null = null;
  private steppedAside = false;

  constructor(
    private readonly reader: SessionRecordReader | undefined,
    /** The recording's start, epoch ms: the record's own times are moved onto its clock. */
    private readonly startedAtEpochMs: number | undefined,
  ) {}

  play(pipeline: TerminalPipeline, line: RecordingRecordPiece): void {
    const reader = this.reader;
    if (!reader || this.steppedAside) return;
    const { t, file } = line;
    if (line.side) {
      this.playSide(pipeline, line, line.side);
      return;
    }
    if (file !== this.current) {
      if (this.current !== null) {
        pipeline.sessionRecord(t, { type: 'status', status: { state: 'searching' } });
      }
      this.current = file;
      pipeline.sessionRecord(t, { type: 'status', status: { state: 'following', file, pid: 0 } });
    }
    let pieces = this.files.get(file);
    if (!pieces) this.files.set(file, (pieces = new PieceReader(reader, true)));
    if (line.reset) {
      pieces.reset();
      pipeline.sessionRecord(t, { type: 'reset', why: line.reset, file });
    }
    const position = { file, offset: line.offset };
    const reading = pieces.read(line.text, position);
    if ('unknown' in reading) {
      this.steppedAside = true;
      pipeline.sessionRecord(t, {
        type: 'status',
        status: { state: 'stepped_aside', why: reading.unknown, position },
      });
      return;
    }
    // Where it falls among the piece's events, as live: text for the payload only, it changes no
    // state.
    const reply = pieces.reply(line.text);
    const [before, after] = aroundReply(reading.events, reply);
    const play = (events: readonly RecordEvent[]) => {
      if (events.length === 0) return;
      pipeline.sessionRecord(t, {
        type: 'events',
        events: events.map((e) => this.onRecordingClock(e)),
      });
    };
    play(before);
    if (reply) pipeline.sessionRecord(t, { type: 'reply', reply });
    play(after);
  }

  /** A line of the reader's shared side record: read for the process the recording names. */
  private playSide(
    pipeline: TerminalPipeline,
    line: RecordingRecordPiece,
    of: { pid: number; startedAtMs: number },
  ): void {
    const side = this.reader?.side;
    const position = { file: line.file, offset: line.offset };
    const reading = side
      ? side.read(line.text, position, of)
      : { unknown: 'a side record piece, and the reader has none' };
    if ('unknown' in reading) {
      this.steppedAside = true;
      pipeline.sessionRecord(line.t, {
        type: 'status',
        status: { state: 'stepped_aside', why: reading.unknown, position },
      });
    } else if (reading.events.length > 0) {
      pipeline.sessionRecord(line.t, {
        type: 'events',
        events: reading.events.map((e) => this.onRecordingClock(e)),
        side: true,
      });
    }
  }

  /** An event's own time moved onto the recording's clock (dropped when that is unknown). */
  private onRecordingClock(e: RecordEvent): RecordEvent {
    if (e.atMs === undefined) return e;
    const { atMs, ...rest } = e;
    return this.startedAtEpochMs === undefined
      ? rest
      : { ...rest, atMs: atMs - this.startedAtEpochMs };
  }
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
  const epoch = rec.header.startedAtEpochMs;
  const pieces = new PiecePlayer(
    recordReaderOf(rec),
    typeof epoch === 'number' && Number.isFinite(epoch) ? epoch : undefined,
  );
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
    } else if (line.type === 'record_piece') {
      pieces.play(pipeline, line);
    } else {
      pipeline.submit(line.t, line.text);
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
