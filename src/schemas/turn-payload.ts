import { z } from 'zod';
import { OutcomeWitnessSchema, TurnSourceSchema } from './terminal-state.js';

/** The most reply text a payload keeps, in UTF-8 bytes (64 KiB); more is cut, `truncated` says so. */
export const MAX_REPLY_BYTES = 64 * 1024;

/** How many turns' payloads a terminal keeps in memory (the latest ones). */
export const MAX_TURN_PAYLOADS = 20;

/**
 * What a turn answered (docs/contracts.md §6): the reply text, its outcome with its evidence,
 * and its timing. Held in memory for a terminal's latest turns only; never in the journal, the
 * public state, SSE or NATS state.
 */
export const TurnPayload = z.object({
  terminalId: z.string(),
  turnId: z.string(),
  /** How the turn came to be: typed through paneward, or seen on the screen. */
  source: TurnSourceSchema,
  /** False while the turn runs: `result` and `reply` are null then. */
  ended: z.boolean(),
  /** The turn's outcome once it ended (`none`: it ended without one: abandoned, superseded). */
  result: z.enum(['none', 'success', 'interrupted', 'known_failure']).nullable(),
  /** What the agent answered; null while the turn runs. */
  reply: z
    .object({
      /** The reply as text ('' when none was found). */
      text: z.string(),
      /**
       * Where it was read: the CLI's session record (`record`), the pane's screen between the
       * prompt and the ready prompt, chrome left out (`screen`), or nowhere (`null`).
       */
      source: z.enum(['record', 'screen']).nullable(),
      /**
       * The text is not whole: cut at 64 KiB, or (from the screen) its start had scrolled out
       * of the pane.
       */
      truncated: z.boolean(),
    })
    .nullable(),
  /** What the outcome was decided on, as the journal's `turn.ended` says it. */
  evidence: z.object({
    /** Which witness decided (docs/witness.md); null under the screen alone or while it runs. */
    witness: OutcomeWitnessSchema.nullable(),
    /** The session record's line that ended the turn, when the record took part. */
    record: z.object({ file: z.string(), offset: z.number(), event: z.string() }).nullable(),
    /** The hook's event that told it, when a hook took part. */
    hook: z.object({ event: z.string() }).nullable(),
  }),
  /** Observation times in seconds (epoch seconds live, the recording's clock in a replay). */
  timing: z.object({
    /** When the turn was armed: the prompt submitted, or the turn seen starting. */
    startedAt: z.number(),
    /** When its outcome was decided; null while it runs. */
    endedAt: z.number().nullable(),
    /** `endedAt - startedAt` in ms; null while it runs. */
    durationMs: z.number().nullable(),
  }),
});
export type TurnPayload = z.infer<typeof TurnPayload>;
