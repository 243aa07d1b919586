import { z } from '@hono/zod-openapi';
import { ObservationAnswer, ObservationBody } from '../observer-ending.js';
import { defineOperation, TERMINAL_ERRORS, TerminalId } from './contract.js';

export { ObservationAnswer, ObservationBody };

/**
 * Tell how a terminal's open turn ended, as a completion observer
 * (`POST /v1/terminals/{id}/observations`): a witness beside the screen under the terminal's
 * completion authority. Refused (`refused`, 409) for a turn that is not the open one.
 */
export const observe = defineOperation({
  name: 'observe',
  summary: "Tell how a terminal's open turn ended, as a completion observer",
  input: z.strictObject({ id: TerminalId, body: ObservationBody }),
  output: ObservationAnswer,
  errors: [...TERMINAL_ERRORS, 'refused', 'not_ready'],
  http: { method: 'post', path: '/v1/terminals/{id}/observations' },
  notServed: {
    cli: 'a completion observer is a program of its own that posts its endings (docs/witness.md)',
    mcp: 'a completion observer is a program of its own that posts its endings (docs/witness.md)',
  },
});
