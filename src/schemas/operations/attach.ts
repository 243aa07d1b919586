import { z } from '@hono/zod-openapi';
import { AttachRequest } from '../../supervisor/supervisor.js';
import { TerminalState } from '../terminal-state.js';
import { defineOperation, HostId, TERMINAL_ERRORS, TMUX_ERRORS } from './contract.js';

/** A name the service only compares (a tool, a version): printable, never a key to a terminal. */
const Printable = z
  .string()
  .min(1)
  .max(64)
  .regex(new RegExp(String.raw`^[^\x00-\x1f\x7f-\x9f]+$`), 'must not hold control characters');

export const AttachBody = z
  .strictObject({
    ...AttachRequest.shape,
    tool: Printable.optional(),
    toolVersion: Printable.optional(),
    /** In a fleet: the host whose tmux server has the pane (a single server refuses it). */
    host: HostId.optional(),
  })
  .openapi('AttachRequest');
export type AttachBody = z.infer<typeof AttachBody>;

/** Attach a pane (`POST /v1/terminals`); the tool is detected when not given. */
export const attach = defineOperation({
  name: 'attach',
  summary: 'Attach a pane (the tool is detected when not given)',
  input: z.strictObject({ body: AttachBody }),
  output: z.object({ terminalId: z.string(), state: TerminalState }),
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'refused'],
  http: { method: 'post', path: '/v1/terminals' },
  notServed: {
    mcp: 'a model works with the terminals there are, or starts one with spawn; `paneward mcp` attaches the panes it is given before it serves',
  },
});
