import { z } from '@hono/zod-openapi';
import { MAX_BUDGET_SECONDS } from '../../internal/bounds.js';
import { ChartSettings } from '../kernel.js';
import { TerminalState } from '../terminal-state.js';
import { defineOperation, TERMINAL_ERRORS, TerminalId, TMUX_ERRORS } from './contract.js';
import { RestartLimits, RestartPolicy, Spawned } from './spawned.js';

const CONTROL = String.raw`\x00-\x1f\x7f`;

/** A profile id with a launch recipe (`claude_code`, `codex`, …). */
export const SpawnTool = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a tool id such as claude_code or codex');

/** An environment variable's name: a letter or underscore, then letters, digits, underscores. */
export const EnvName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    'must be a variable name: a letter or underscore, then letters, digits or underscores',
  );

/** An environment value or an argument: any text but NUL (which no argv or environment can carry). */
const ArgText = (what: string) =>
  z
    .string()
    .max(8192, `${what} must be at most 8192 characters`)
    .refine((s) => !s.includes('\0'), `${what} must not contain NUL`);

/**
 * A branch for `git worktree add -b`: the safe part of what `git check-ref-format --branch`
 * allows (git itself is asked too before anything is created).
 */
export const BranchName = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[A-Za-z0-9._/-]+$/,
    'must be a branch name of letters, digits, dot, dash, underscore or slash',
  )
  .refine(
    (s) =>
      !s.startsWith('-') &&
      !s.startsWith('/') &&
      !s.startsWith('.') &&
      !s.endsWith('/') &&
      !s.endsWith('.') &&
      !s.endsWith('.lock') &&
      !s.includes('..') &&
      !s.includes('//') &&
      !s.includes('/.') &&
      s !== '@',
    'must be a valid branch name (no leading dash, dot or slash, no "..", "//" or trailing ".lock")',
  );

/**
 * What `spawn` takes: start an agent CLI in a new tmux window, the way its launch recipe says,
 * and attach it. Nothing here is ever joined into a shell string: the command is argv.
 */
export const SpawnRequest = z
  .strictObject({
    /** Which CLI (a profile id with a launch recipe). */
    tool: SpawnTool,
    /** The folder it runs in (absolute); default: the service's working directory. */
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .refine((s) => s.startsWith('/'), 'must be an absolute path')
      .refine((s) => !s.includes('\0'), 'must not contain NUL')
      .optional(),
    /** The tmux window's name; default: the tool id. */
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(new RegExp(`^[^${CONTROL}]+$`), 'must not hold control characters')
      .optional(),
    /** The tmux session to open the window in (created detached when missing); default `paneward`. */
    session: z
      .string()
      .min(1)
      .max(64)
      .regex(new RegExp(`^[^:.${CONTROL}]+$`), 'must not hold ":", "." or control characters')
      .optional(),
    /** The terminal id; default: named after the session and window. */
    id: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
        'a letter or digit, then letters, digits, dot, dash or underscore, at most 64 in all',
      )
      .optional(),
    /**
     * Run it in a new git worktree of `cwd` on this new branch (at
     * `<repo>.worktrees/<branch>` beside the repository).
     */
    worktree: BranchName.optional(),
    /** Environment variables for the CLI (e.g. a model server's address). */
    env: z.record(EnvName, ArgText('an environment value')).optional(),
    /** Extra arguments for the CLI, each one argv entry (never joined, never through a shell). */
    args: z.array(ArgText('an argument')).max(64).optional(),
    /** Start it again when it dies (`on-failure`), or not (`never`, the default). */
    restart: RestartPolicy.optional(),
    /** Backoff and limit of `on-failure` restarts. */
    restartLimits: RestartLimits.optional(),
    /** Session wall-clock budget (docs/statecharts.md §7); default 14400; 0: no watchdog. */
    sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
    /** How long to wait for the CLI to be `ready` (or `blocked` on a first-run dialog). */
    readyTimeoutSeconds: z.number().positive().max(600).optional(),
    /** This terminal's chart settings. */
    config: ChartSettings.optional(),
  })
  .openapi('SpawnRequest');
export type SpawnRequest = z.input<typeof SpawnRequest>;

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

export const StopInput = z.strictObject({
  id: TerminalId,
  force: z.boolean().optional(),
  removeWorktree: z.boolean().optional(),
  timeoutSeconds: z.number().positive().max(120).optional(),
});
export type StopInput = z.input<typeof StopInput>;

export const StopAnswer = z
  .object({
    ok: z.literal(true),
    /** `exit_command`: the CLI ended after its exit command; `killed`: it did not in time. */
    ended: z.enum(['exit_command', 'killed', 'already_gone']),
    /** The worktree removed, if one was. */
    worktreeRemoved: z.string().nullable(),
  })
  .openapi('Stopped');
export type StopAnswer = z.infer<typeof StopAnswer>;

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

export { RestartLimits, RestartPolicy, RestartStatus, Spawned } from './spawned.js';
