import { z } from '@hono/zod-openapi';
import { MAX_PROMPT_CHARS, PromptText } from '../prompt.js';
import { TerminalState } from '../terminal-state.js';
import { TurnPayload as TurnPayloadSchema } from '../turn-payload.js';
import {
  defineOperation,
  TERMINAL_ERRORS,
  TerminalId,
  TMUX_ERRORS,
  TurnId,
  TurnIdField,
} from './contract.js';

/** What a turn answered: reply text, outcome, evidence, timing (docs/contracts.md §6). */
export const TurnPayload = TurnPayloadSchema;
export type TurnPayload = z.infer<typeof TurnPayload>;

/**
 * The turn's payload in a wait's answer: null when it is not kept (a turn from before a restart);
 * absent from a server older than payloads.
 */
const PayloadField = TurnPayload.nullable().optional();

/** The longest a turn is waited for, in seconds (a day); the default is 600. */
const TimeoutSeconds = z.number().positive().max(86_400).default(600);

export const TurnBody = z
  .strictObject({
    prompt: PromptText.describe(
      `The prompt, typed literally (newlines and tabs allowed; no other control characters; at most ${MAX_PROMPT_CHARS} characters).`,
    ),
    /** How long to wait for the turn to end (default 600, at most a day). */
    timeoutSeconds: TimeoutSeconds,
    force: z.boolean().optional(),
  })
  .openapi('TurnRequest');

export const TurnResponse = z
  .object({
    turnId: z.string(),
    /** How the turn's completion ended, or `timeout` when it had not ended in time. */
    result: z.enum(['completed', 'failed', 'timeout']),
    completion: TerminalState.shape.completion,
    lastTurn: TerminalState.shape.lastTurn,
    payload: PayloadField,
  })
  .openapi('TurnResult');
export type TurnResponse = z.infer<typeof TurnResponse>;

export const TurnWaitQuery = z.strictObject({
  /**
   * How long to wait for the turn to end (at most a day). Absent: no wait, the turn's payload
   * is answered at once.
   */
  timeoutSeconds: z.coerce.number().positive().max(86_400).optional(),
});

/**
 * Submit a prompt and wait for that turn to end (`POST /v1/terminals/{id}/turns`): a wait that
 * runs out answers `timeout` with what is known, never an error.
 */
export const turns = defineOperation({
  name: 'turns',
  summary: 'Submit a prompt and wait for that turn to end',
  input: z.strictObject({ id: TerminalId, body: TurnBody }),
  output: TurnResponse,
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'not_ready', 'refused'],
  http: { method: 'post', path: '/v1/terminals/{id}/turns' },
  notServed: {
    cli: '`send` prints the turn id as soon as it is typed, then `--wait` waits by that id (`wait`): a lost connection never leaves the turn unknown',
  },
});

/** What a supervisor's own wait resolves with: the turn's completion ended. */
export const TurnEnded = z.object({
  turnId: z.string(),
  result: z.enum(['completed', 'failed']),
  completion: TerminalState.shape.completion.unwrap(),
  lastTurn: TerminalState.shape.lastTurn,
  payload: PayloadField,
});

/**
 * Wait for a turn to end, as a supervisor does (`waitForTurn`): a wait that runs out is the
 * error `timeout`. The HTTP route over it answers `timeout` as a result instead (see `turns`). A
 * turn id the terminal never had is the error `unknown_turn` (404) at once, not a wait.
 */
export const wait = defineOperation({
  name: 'wait',
  summary: 'Wait for a turn `input` started to end',
  input: z.strictObject({
    id: TerminalId,
    turnId: TurnIdField,
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(2 ** 31 - 1),
  }),
  output: TurnEnded,
  /** `unknown_turn`: the terminal has no such turn (its current, last or a recent one). */
  errors: [...TERMINAL_ERRORS, 'unknown_turn', 'timeout'],
  // With `timeoutSeconds`; a wait that runs out answers `timeout` as a result there.
  http: { method: 'get', path: '/v1/terminals/{id}/turns/{turnId}' },
});

/**
 * A turn's payload now (`GET /v1/terminals/{id}/turns/{turnId}` without `timeoutSeconds`):
 * answered at once, `ended: false` while the turn runs. Kept in memory for the terminal's latest
 * 20 turns: any other turn id is `unknown_turn` (404), the message saying whether it was never
 * the terminal's or is no longer kept.
 */
export const turn = defineOperation({
  name: 'turn',
  summary: "A turn's payload: its reply text, outcome, evidence and timing",
  input: z.strictObject({ id: TerminalId, turnId: TurnId }),
  output: TurnPayload,
  errors: [...TERMINAL_ERRORS, 'unknown_turn'],
  http: { method: 'get', path: '/v1/terminals/{id}/turns/{turnId}' },
  notServed: {
    cli: "`send --wait` prints the turn's reply from the wait's answer",
    mcp: "send_prompt and wait_for_turn answer with the turn's reply",
  },
});
