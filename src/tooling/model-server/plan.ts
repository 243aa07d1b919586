import { z } from 'zod';

/**
 * What the fake model does for one model request. Plans are consumed in order by the requests
 * they match; a request with no plan left gets the default reply.
 */
export const TurnPlan = z.object({
  /** Which requests may consume this plan: streaming ones (the default) or any. */
  match: z.enum(['stream', 'any']).default('stream'),
  /** Wait before the response headers. */
  delayMs: z.number().nonnegative().default(0),
  /** Reply text; split into `chunks` when those are not given. */
  text: z.string().default('OK.'),
  chunks: z.array(z.string()).optional(),
  /** Wait between two chunks. */
  chunkDelayMs: z.number().nonnegative().default(40),
  /** Extra pauses: after chunk `afterChunk` (0-based) wait `ms` more. */
  pauses: z
    .array(z.object({ afterChunk: z.number().int(), ms: z.number().nonnegative() }))
    .default([]),
  /** Answer with an HTTP error instead of a stream. */
  error: z
    .object({
      status: z.number().int(),
      type: z.string().optional(),
      /** The provider's error code (OpenAI's `code`: `context_length_exceeded`, ...). */
      code: z.string().optional(),
      message: z.string().optional(),
    })
    .optional(),
  /** End the turn with a tool call instead of (after) the text. */
  toolUse: z
    .object({
      name: z.string(),
      input: z.record(z.string(), z.unknown()),
      id: z.string().optional(),
    })
    .optional(),
  /** Start the stream and never finish it (until the client goes away or the server closes). */
  hang: z.boolean().default(false),
  /**
   * Cut the connection mid-stream: after chunk `afterChunk` (0-based) the server destroys the
   * socket without ending the response (no final chunk, no `[DONE]`).
   */
  disconnect: z.object({ afterChunk: z.number().int().nonnegative() }).optional(),
  /**
   * The token usage the reply reports (input tokens): a long conversation without sending one.
   * CLIs that track their context window warn, and compact, when it nears the window.
   */
  usage: z.object({ inputTokens: z.number().int().nonnegative() }).optional(),
});
export type TurnPlan = z.infer<typeof TurnPlan>;
export type TurnPlanInput = z.input<typeof TurnPlan>;

/** Splits reply text into word-sized chunks, keeping the spaces. */
export function chunksOf(plan: TurnPlan): string[] {
  if (plan.chunks) return plan.chunks;
  const parts = plan.text.match(/\S+\s*/g);
  return parts && parts.length > 0 ? parts : [plan.text];
}
