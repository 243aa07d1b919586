import { z } from '@hono/zod-openapi';
import { defineOperation, TERMINAL_ERRORS, TerminalId, TMUX_ERRORS } from './contract.js';

/** A question's id as the state shows it (`surface.question.id`). */
export const QuestionId = z
  .string()
  .regex(/^q-[0-9a-f]{12}$/, 'must be a question id such as q-625b38fb69ba (surface.question.id)')
  .describe("The question's id as the terminal's state shows it (q-…).");

/** A choice's id as the question lists it (`allow_once`, `deny`, `trust`, ...). */
export const ChoiceId = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,47}$/,
    'must be a choice id such as allow_once (surface.question.choices[].id)',
  )
  .describe("One of the question's choice ids (allow_once, allow_always, deny, trust, ...).");

/** Which bearer token a request carried, as the journal names it: never the token itself. */
export const TokenId = z
  .string()
  .regex(/^tok-[0-9a-f]{8}$/, 'must be a token id such as tok-0123abcd');

/** `POST /v1/terminals/{id}/answer`: the question on screen and the choice given. */
export const AnswerBody = z
  .strictObject({
    questionId: QuestionId,
    choice: ChoiceId,
    /** Which client answers, for the journal (`cli`, `dashboard`); a plain request is `http`. */
    via: z.enum(['http', 'cli', 'dashboard']).optional(),
  })
  .openapi('AnswerBody');

/** What an answer did: the question, its kind, the choice, and that the dialog closed. */
export const AnswerDone = z
  .object({
    questionId: z.string(),
    kind: z.enum(['tool_permission', 'trust_folder', 'login', 'other']),
    choice: z.string(),
    closed: z.literal(true),
  })
  .openapi('AnswerDone');

/**
 * Answer the question a dialog on screen asks (docs/questions.md): `POST …/answer`, and the
 * fleet's `answer` command, which a host's edge runs through its supervisor's gate.
 */
export const answer = defineOperation({
  name: 'answer',
  summary: 'Answer the question a dialog on screen asks, with one of its choices',
  input: z.strictObject({
    id: TerminalId,
    body: AnswerBody,
    /**
     * The short hash of the bearer token the request carried (`tok-` and 8 hex digits), for the
     * journal; a fleet server sends its own. Null or absent: none.
     */
    tokenId: TokenId.nullable().optional(),
  }),
  output: AnswerDone,
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'refused', 'answer_failed'],
  http: { method: 'post', path: '/v1/terminals/{id}/answer' },
});
