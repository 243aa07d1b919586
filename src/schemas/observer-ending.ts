import { z } from '@hono/zod-openapi';

const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const KIND = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * An ending a completion observer outside the service tells about a terminal's open turn
 * (`POST /v1/terminals/{id}/observations`, docs/witness.md): which observer, which turn, how it
 * ended. Names only, never any text of the turn.
 */
export const ObservationBody = z
  .strictObject({
    observer: z.string({ error: 'observer must be a string' }).regex(NAME, {
      error:
        'observer must be a name: a letter, then letters, digits or `_.:-`, at most 64 characters',
    }),
    turnId: z
      .string({ error: 'turnId must be a string' })
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'turnId must be a turn id such as turn-3' }),
    reason: z.enum(['success', 'interrupted', 'known_failure'], {
      error: 'reason must be success, interrupted or known_failure',
    }),
    /** A known failure's kind (`rate_limit`, `http_500`, ...): required with `known_failure`. */
    kind: z
      .string({ error: 'kind must be a string' })
      .regex(KIND, { error: 'kind must be a failure kind: letters, digits or `_.:-`, at most 64' })
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.reason === 'known_failure' && b.kind === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message:
          'kind is required when reason is known_failure (the failure as the observer names it)',
      });
    }
    if (b.reason !== 'known_failure' && b.kind !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `kind is given only with reason known_failure, not ${b.reason}`,
      });
    }
  })
  .openapi('ObservationRequest');
export type ObservationBody = z.infer<typeof ObservationBody>;

/** What the service did with an observer's ending. */
export const ObservationAnswer = z
  .object({
    terminalId: z.string(),
    turnId: z.string(),
    /**
     * `turn_ended`: taken as a witness of the turn; `ignored`: the terminal runs under `surface`
     * (the screen alone decides), or an observer already ended this turn (`why`).
     */
    taken: z.enum(['turn_ended', 'ignored']),
    why: z.enum(['surface', 'already_ended']).optional(),
  })
  .openapi('ObservationAnswer');
export type ObservationAnswer = z.infer<typeof ObservationAnswer>;
