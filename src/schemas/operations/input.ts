import { z } from '@hono/zod-openapi';
import { PromptText } from '../prompt.js';
import { defineOperation, TERMINAL_ERRORS, TerminalId, TMUX_ERRORS } from './contract.js';

/** Prompts are typed literally; a longer one, or one with control characters, is refused. */
export { MAX_PROMPT_CHARS } from '../prompt.js';

export const InputBody = z
  .strictObject({
    text: PromptText,
    /** Type it even when the terminal is not ready. */
    force: z.boolean().optional(),
  })
  .openapi('InputRequest');

export const InputAccepted = z.object({ turnId: z.string() }).openapi('InputAccepted');

/** Type a prompt literally and submit it (`POST /v1/terminals/{id}/input`). */
export const input = defineOperation({
  name: 'input',
  summary: 'Type a prompt literally and submit it (refused unless ready, or forced)',
  input: z.strictObject({ id: TerminalId, body: InputBody }),
  output: InputAccepted,
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'not_ready', 'refused'],
  http: { method: 'post', path: '/v1/terminals/{id}/input' },
  notServed: {
    mcp: 'send_prompt submits and waits for the turn in one call (`turns`): a model never holds a prompt it cannot follow',
  },
});
