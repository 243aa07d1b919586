import { z } from '@hono/zod-openapi';

const NAME = /^[A-Za-z][A-Za-z0-9_.:-]*$/;

/**
 * What a hook posts (`POST /v1/hooks/{tool}`, docs/hooks.md): the CLI's event name, the pane it
 * runs in as tmux tells it (`TMUX_PANE`, and `TMUX`: socket path, server pid, session), and
 * for a failure the CLI's own kind. Never any text of the turn.
 */
export const HookEventBody = z.strictObject({
  event: z
    .string({ error: 'event must be a string' })
    .min(1, { error: 'event must not be empty' })
    .max(64, { error: 'event must be at most 64 characters' })
    .regex(NAME, { error: 'event must be an event name (letters, digits, `_.:-`)' }),
  pane: z
    .string({ error: 'pane must be a string' })
    .regex(/^%\d+$/, { error: 'pane must be a tmux pane id "%N" (TMUX_PANE)' }),
  tmux: z
    .string({ error: 'tmux must be a string' })
    .max(4096, { error: 'tmux must be at most 4096 characters' })
    .regex(/^[^,]+,\d+,\d+$/, {
      error: 'tmux must be the TMUX variable: "socket path,server pid,session"',
    }),
  error: z
    .string({ error: 'error must be a string' })
    .max(64, { error: 'error must be at most 64 characters' })
    .regex(NAME, { error: 'error must be a failure kind (letters, digits, `_.:-`)' })
    .optional(),
});
export type HookEventBody = z.infer<typeof HookEventBody>;

/** The tools with hooks, as a path parameter. */
export const HookTool = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, { error: 'tool must be a tool id such as claude_code' });

/** What the service did with a hook's event. */
export const HookAnswer = z.object({
  terminalId: z.string(),
  /** `turn_started` / `turn_ended`: taken as a witness; `ignored`: the event tells no turn. */
  taken: z.enum(['turn_started', 'turn_ended', 'ignored']),
});
export type HookAnswer = z.infer<typeof HookAnswer>;
