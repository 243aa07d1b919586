import { z } from 'zod';
import { TerminalState } from '../schemas/terminal-state.js';
import { COMMANDS, HostId, ObserverView } from '../schemas/operations/index.js';
import type { CommandCall } from '../service/commands.js';

export { HostId };

/** The latest public state of one terminal, as an edge keeps it in the state bucket. */
export const StateEntry = z.object({
  host: HostId,
  terminalId: z.string(),
  /** Epoch ms on the edge when it was written. */
  at: z.number(),
  state: TerminalState,
});
export type StateEntry = z.infer<typeof StateEntry>;

/** An edge's heartbeat (the hosts bucket expires it when the edge stops sending). */
export const Heartbeat = z.object({
  host: HostId,
  pid: z.number().int(),
  /** Epoch ms on the edge. */
  startedAt: z.number(),
  at: z.number(),
  terminals: z.number().int().nonnegative(),
  /** The edge journal's last acknowledged seq, and the last one JetStream acknowledged. */
  durableSeq: z.number().int().nonnegative(),
  publishedSeq: z.number().int().nonnegative(),
  /** Its supervisor's observer (paneward's own sampling health); null before its first report. */
  observer: ObserverView.nullable(),
});
export type Heartbeat = z.infer<typeof Heartbeat>;

const Base = {
  /** Unique per command: an edge answers a repeated id with the first answer, never runs it twice. */
  requestId: z.string().min(8).max(64),
  /** Epoch ms (the sender's clock) after which the sender no longer waits: the edge drops it. */
  expiresAt: z.number(),
};
const call = (op: string, input: z.ZodObject) =>
  z.strictObject({ ...Base, op: z.literal(op), ...input.shape });
const [first, ...rest] = Object.entries(COMMANDS).map(([op, c]) => call(op, c.input));

/**
 * A command to an edge, over request/reply: the operation's name and its contract's input
 * (`src/schemas/operations/`), validated by the edge as the HTTP API validates it. One member
 * per entry of `COMMANDS`.
 */
export const CommandRequest = z.discriminatedUnion('op', [first!, ...rest]);
/** A command as an edge reads it: one command's input beside its name and the envelope. */
export type CommandRequest = CommandCall & z.infer<z.ZodObject<typeof Base>>;
export type CommandOp = CommandRequest['op'];

export const CommandError = z.object({
  code: z.string(),
  message: z.string(),
  details: z.unknown().nullable(),
});

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: CommandError }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
