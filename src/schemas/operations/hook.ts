import { z } from '@hono/zod-openapi';
import { HookAnswer, HookEventBody, HookTool } from '../hook.js';
import { defineOperation } from './contract.js';

export { HookAnswer, HookEventBody, HookTool };

/**
 * An event a CLI's hook posted about its own turns (`POST /v1/hooks/{tool}`, docs/hooks.md):
 * taken as a witness of the terminal supervising the pane it ran in. Nothing is ever typed.
 */
export const hook = defineOperation({
  name: 'hook',
  summary: "An event a CLI's hook posted: a witness of the turns of the pane it ran in",
  input: z.strictObject({ tool: HookTool, body: HookEventBody }),
  output: HookAnswer,
  // `unknown_terminal`: no supervised terminal runs in that pane; `refused`: it is another tool's.
  errors: ['invalid_input', 'unknown_terminal', 'refused', 'internal'],
  http: { method: 'post', path: '/v1/hooks/{tool}' },
  notServed: {
    cli: "the CLI's own hook posts it (`paneward hooks install` sets it up)",
    mcp: "the CLI's own hook posts it (`paneward hooks install` sets it up)",
    fleet:
      'a hook posts to the paneward of its own host, which supervises its pane and publishes what it witnessed',
  },
});
