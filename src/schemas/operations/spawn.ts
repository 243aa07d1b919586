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
  http: { method: 'post', path: '/v1/terminals' },
  notServed: {
    fleet:
      'a fleet server starts nothing: a CLI is started by the paneward of the host it is to run on',
  },
});

/** A query flag: `true`/`1` or `false`/`0`. */
const Flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((s) => s === 'true' || s === '1')
  .optional();

/** A field of `stop` as a query carries it: a flag, or a number as text. */
type QueryOf<S> = {
  [K in keyof S]: S[K] extends z.ZodOptional<z.ZodBoolean>
    ? typeof Flag
    : z.ZodOptional<z.ZodNumber>;
};

/**
 * `DELETE /v1/terminals/{id}` query: without `stop=true` it detaches only. With it, `stop`'s
 * own fields as a query carries them (flags as `true`/`1`, numbers as text), checked as `stop`
 * checks them.
 */
export const DeleteQuery = z.strictObject({
  stop: Flag,
  ...Object.fromEntries(
    Object.entries(StopInput.omit({ id: true }).shape).map(([k, field]) => [
      k,
      field.unwrap() instanceof z.ZodBoolean
        ? Flag
        : z.coerce
            .number()
            .pipe(field.unwrap() as z.ZodNumber)
            .optional(),
    ]),
  ),
}) as z.ZodObject<{ stop: typeof Flag } & QueryOf<Omit<typeof StopInput.shape, 'id'>>>;

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
  // With `stop=true`; the other fields as the query.
  http: { method: 'delete', path: '/v1/terminals/{id}' },
  notServed: {
    fleet:
      'a fleet server starts nothing, so it stops nothing: the paneward that started a CLI stops it',
  },
});

export {
  BranchName,
  EnvName,
  RestartLimits,
  RestartPolicy,
  RestartStatus,
  Spawned,
  SpawnFields,
  SpawnRequest,
  SpawnTool,
  StopAnswer,
  StopInput,
} from '../spawn.js';
