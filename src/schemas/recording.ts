import { z } from 'zod';
import { ProcessOutcome, TransportOutcome, ParseOutcome } from './probe.js';

/** Recording header (docs/contracts.md §2). Extra fields are kept as they are. */
export const RecordingHeader = z.looseObject({
  type: z.literal('header'),
  version: z.literal(1),
  tool: z.string().min(1),
  toolVersion: z.string().optional(),
  cols: z.number().int().positive().optional(),
  rows: z.number().int().positive().optional(),
  /**
   * The pane's session record was followed while recording: which reader read it (a profile
   * id) and how its pieces come (`jsonl`: a line each; `document`: the whole document each
   * time it changed). Absent: the recording holds no session record (docs/contracts.md §2).
   */
  sessionRecord: z
    .object({ reader: z.string().min(1), kind: z.enum(['jsonl', 'document']) })
    .optional(),
});
export type RecordingHeader = z.infer<typeof RecordingHeader>;

const time = z.number().nonnegative();

/** One poll with a capture. */
export const RecordingFrame = z.looseObject({
  type: z.literal('frame'),
  t: time,
  text: z.string(),
  ansi: z.string().optional(),
  transport: TransportOutcome.default('tmux_up'),
  process: ProcessOutcome.default('tui_up'),
});
export type RecordingFrame = z.infer<typeof RecordingFrame>;

/** A prompt submitted through the supervisor. */
export const RecordingInput = z.looseObject({
  type: z.literal('input'),
  t: time,
  text: z.string(),
});
export type RecordingInput = z.infer<typeof RecordingInput>;

/** A poll that produced no capture. */
export const RecordingProbe = z.looseObject({
  type: z.literal('probe'),
  t: time,
  transport: TransportOutcome,
  process: ProcessOutcome.default('unknown'),
  parse: ParseOutcome.optional(),
  error: z.object({ kind: z.string(), message: z.string() }).nullable().optional(),
});
export type RecordingProbe = z.infer<typeof RecordingProbe>;

/**
 * One piece of the pane's session record as the follower read it at time t: a complete line
 * (`jsonl`) or the whole document (`document`), with its file's name (an id within this
 * recording, not a path) and its byte offset. `reset` says the follower read the file again
 * from the start just before (the file was replaced or cut short).
 */
export const RecordingRecordPiece = z.looseObject({
  type: z.literal('record_piece'),
  t: time,
  file: z.string().min(1),
  offset: z.number().int().nonnegative(),
  text: z.string(),
  reset: z.enum(['replaced', 'truncated']).optional(),
  /**
   * A line of the reader's shared side record (Cline's log), not of the record itself: the
   * process whose lines count (its `pid`, and its start, epoch ms).
   */
  side: z
    .looseObject({ pid: z.number().int().positive(), startedAtMs: z.number().nonnegative() })
    .optional(),
});
export type RecordingRecordPiece = z.infer<typeof RecordingRecordPiece>;

export const RecordingLine = z.discriminatedUnion('type', [
  RecordingHeader,
  RecordingFrame,
  RecordingInput,
  RecordingProbe,
  RecordingRecordPiece,
]);
export type RecordingLine = z.infer<typeof RecordingLine>;
