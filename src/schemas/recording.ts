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

export const RecordingLine = z.discriminatedUnion('type', [
  RecordingHeader,
  RecordingFrame,
  RecordingInput,
  RecordingProbe,
]);
export type RecordingLine = z.infer<typeof RecordingLine>;
