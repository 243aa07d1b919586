import { z } from '@hono/zod-openapi';
import { TerminalState } from '../terminal-state.js';
import { defineOperation, TERMINAL_ERRORS, TMUX_ERRORS } from './contract.js';
import { Spawned, SpawnRequest, StopAnswer, StopInput } from '../spawn.js';

/** The `POST /v1/terminals` body that spawns (the other body attaches a pane). */
export const SpawnBody = z.strictObject({ spawn: SpawnRequest }).openapi('SpawnBody');
export type SpawnBody = z.input<typeof SpawnBody>;

/**
 * Start an agent CLI in a new tmux window and attach it (`POST /v1/terminals {spawn}`); answered
 * once it is `ready`, or `blocked` on a first-run dialog (`timeout` names `readyTimeoutSeconds`).
 */
export const spawn = defineOperation({
  name: 'spawn',
  summary:
    'Start an agent CLI in a new tmux window and attach it; answered once it is ready (or blocked on a first-run dialog)',
  input: SpawnBody,
  output: z.object({ terminalId: z.string(), state: TerminalState, spawned: Spawned }),
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'refused', 'timeout'],
});

/** `DELETE /v1/terminals/{id}` query: without `stop=true` it detaches only. */
const Flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((s) => s === 'true' || s === '1')
  .optional();
export const DeleteQuery = z.strictObject({
  /** End the CLI with its own exit command, then close its window. */
  stop: Flag,
  /** Stop a pane paneward did not start; remove a worktree that has changes. */
  force: Flag,
  /** With `stop`: remove the worktree the terminal was spawned in. */
  removeWorktree: Flag,
  /** How long to wait for the CLI to exit before its window is killed (default 15). */
  timeoutSeconds: z.coerce.number().positive().max(120).optional(),
});

/**
 * End the CLI with its exit command (typed through the same checks as a prompt), wait for it to
 * end, close its window and detach (`DELETE /v1/terminals/{id}?stop=true`). Refused for a pane
 * paneward did not start unless `force`.
 */
export const stop = defineOperation({
  name: 'stop',
  summary: 'End the CLI with its own exit command, then close its window (detached too)',
  input: StopInput,
  output: StopAnswer,
  errors: [...TERMINAL_ERRORS, ...TMUX_ERRORS, 'refused', 'not_ready'],
});

export {
  BranchName,
  EnvName,
  RestartLimits,
  RestartPolicy,
  RestartStatus,
  Spawned,
  SpawnRequest,
  SpawnTool,
  StopAnswer,
  StopInput,
} from '../spawn.js';
