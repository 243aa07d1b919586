import { z } from '@hono/zod-openapi';
import { Accepted, defineOperation, TERMINAL_ERRORS, TerminalId, TMUX_ERRORS } from './contract.js';

const Id = z.strictObject({ id: TerminalId });

/** Send the tool's interrupt keys (`POST /v1/terminals/{id}/interrupt`). */
export const interrupt = defineOperation({
  name: 'interrupt',
  summary: "Send the tool's interrupt keys",
  input: Id,
  output: Accepted,
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'refused'],
  http: { method: 'post', path: '/v1/terminals/{id}/interrupt' },
});

/** Resume a session the watchdog blocked (`POST /v1/terminals/{id}/resume`). */
export const resume = defineOperation({
  name: 'resume',
  summary: 'Resume a session the watchdog blocked (a fresh window)',
  input: Id,
  output: Accepted,
  errors: [...TERMINAL_ERRORS, 'refused'],
  http: { method: 'post', path: '/v1/terminals/{id}/resume' },
});

/** Detach a terminal (`DELETE /v1/terminals/{id}`); recorded, so a restart does not re-attach it. */
export const detach = defineOperation({
  name: 'detach',
  summary: 'Detach a terminal (recorded: a restarted server will not re-attach it)',
  input: Id,
  output: Accepted,
  errors: TERMINAL_ERRORS,
  http: { method: 'delete', path: '/v1/terminals/{id}' },
  notServed: {
    mcp: 'a model ends what it started with stop; leaving a pane unsupervised is for the operator',
  },
});

/** The pane's latest capture as text, and when it was observed. */
export const Capture = z.object({ text: z.string(), t: z.number() });

/**
 * The pane's latest capture (`GET /v1/terminals/{id}/screen`); null before the first. Asked of
 * the host that owns the pane, never stored in a stream.
 */
export const screen = defineOperation({
  name: 'screen',
  summary: "The pane's latest capture as text (when screens are served)",
  input: Id,
  output: Capture.nullable(),
  errors: TERMINAL_ERRORS,
  http: { method: 'get', path: '/v1/terminals/{id}/screen' },
});
