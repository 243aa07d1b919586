import { z } from '@hono/zod-openapi';
import { MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { ChartSettings } from './kernel.js';

export const RestartPolicy = z.enum(['never', 'on-failure']);
export type RestartPolicy = z.infer<typeof RestartPolicy>;

/** How a terminal whose policy is `on-failure` backs off between restarts, and when it gives up. */
export const RestartLimits = z.strictObject({
  /** Delay before the first restart, doubled for each restart in the window. */
  initialSeconds: z.number().positive().max(3600).default(1),
  /** The cap of that delay. */
  maxSeconds: z.number().positive().max(3600).default(60),
  /** At most this many restarts within `windowSeconds`; one more failure gives up. */
  limit: z.number().int().min(1).max(100).default(5),
  windowSeconds: z.number().positive().max(86_400).default(600),
});
export type RestartLimits = z.infer<typeof RestartLimits>;

/** Where restarts of a spawned terminal stand. */
export const RestartStatus = z.object({
  policy: RestartPolicy,
  /** Restarts so far. */
  restarts: z.number().int().nonnegative(),
  /** Set once restarts gave up (the limit was reached): why. */
  gaveUp: z.object({ reason: z.string(), at: z.string() }).nullable(),
  /** How the CLI last ended, when it did. */
  lastExit: z
    .object({ status: z.number().int().nullable(), signal: z.string().nullable(), at: z.string() })
    .nullable(),
});

/** What paneward knows of a terminal it started. */
export const Spawned = z
  .object({
    tool: z.string(),
    paneId: z.string(),
    session: z.string(),
    window: z.string(),
    cwd: z.string(),
    /** The command as started (the executable first); environment values are never shown. */
    argv: z.array(z.string()),
    /** The names of the environment variables it was given. */
    envNames: z.array(z.string()),
    worktree: z.object({ path: z.string(), branch: z.string() }).nullable(),
    restart: RestartStatus,
  })
  .openapi('Spawned');
export type Spawned = z.infer<typeof Spawned>;

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

/** What a spawn's arguments and environment may take together, in UTF-8 bytes. */
export const MAX_COMMAND_TEXT_BYTES = 12_288;

function commandTextBytes(
  args: readonly string[] | undefined,
  env: Record<string, string> | undefined,
): number {
  let n = 0;
  for (const a of args ?? []) n += Buffer.byteLength(a, 'utf8') + 1;
  for (const [k, v] of Object.entries(env ?? {})) n += Buffer.byteLength(`${k}=${v}`, 'utf8') + 4;
  return n;
}

/**
 * The fields `spawn` takes, each described for whoever fills it in (a person, a model): start an
 * agent CLI in a new tmux window, the way its launch recipe says, and attach it. Nothing here is
 * ever joined into a shell string: the command is argv.
 */
export const SpawnFields = z.strictObject({
  tool: SpawnTool.describe('Which agent CLI: a profile id with a launch recipe.'),
  cwd: z
    .string()
    .min(1)
    .max(4096)
    .refine((s) => s.startsWith('/'), 'must be an absolute path')
    .refine((s) => !s.includes('\0'), 'must not contain NUL')
    .optional()
    .describe("The folder it works in (absolute); default: the service's working directory."),
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(new RegExp(`^[^${CONTROL}]+$`), 'must not hold control characters')
    .optional()
    .describe("The tmux window's name; default: the tool id."),
  session: z
    .string()
    .min(1)
    .max(64)
    // tmux writes ":" and "." of a session name as "_", a backslash as two, and a "$" before
    // another character as "\$": a name with them would not be the name given.
    .regex(
      new RegExp(`^[^:.$\\\\${CONTROL}]+$`),
      'must not hold ":", ".", "$", "\\" or control characters',
    )
    .optional()
    .describe('The tmux session to open the window in (created when missing); default "paneward".'),
  /** The terminal id; default: named after the session and window. */
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'a letter or digit, then letters, digits, dot, dash or underscore, at most 64 in all',
    )
    .optional(),
  worktree: BranchName.optional().describe(
    'Run it in a new git worktree of cwd on this new branch (at <repo>.worktrees/<branch> beside the repository).',
  ),
  env: z
    .record(EnvName, ArgText('an environment value'))
    .optional()
    .describe('Environment variables for the CLI (values are never shown back).'),
  args: z
    .array(ArgText('an argument'))
    .max(64)
    .optional()
    .describe('Extra arguments for the CLI, each passed as it is (never through a shell).'),
  restart: RestartPolicy.optional().describe(
    'Start it again, resuming its conversation where it can, when it dies (on-failure); default never.',
  ),
  /** Backoff and limit of `on-failure` restarts. */
  restartLimits: RestartLimits.optional(),
  /** Session wall-clock budget (docs/statecharts.md §7); default 14400; 0: no watchdog. */
  sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
  readyTimeoutSeconds: z
    .number()
    .positive()
    .max(600)
    .optional()
    .describe(
      'How long to wait for it to be ready (or blocked on a first-run dialog), in seconds.',
    ),
  /** This terminal's chart settings. */
  config: ChartSettings.optional(),
});

/** What `spawn` takes: its fields, and a bound on the command's length. */
export const SpawnRequest = SpawnFields.refine(
  (r) => commandTextBytes(r.args, r.env) <= MAX_COMMAND_TEXT_BYTES,
  {
    message: `args and env together must be at most ${MAX_COMMAND_TEXT_BYTES} bytes (tmux carries the whole command in one 16 KiB message)`,
    path: ['args'],
  },
).openapi('SpawnRequest');
export type SpawnRequest = z.input<typeof SpawnRequest>;

export const StopInput = z.strictObject({
  /** The terminal (the operation checks its form; here it is looked up). */
  id: z.string().min(1).max(129),
  force: z
    .boolean()
    .optional()
    .describe('Stop a pane paneward did not start; remove a worktree that has changes.'),
  removeWorktree: z
    .boolean()
    .optional()
    .describe('Also remove the git worktree it was started in (refused when it has changes).'),
  timeoutSeconds: z
    .number()
    .positive()
    .max(120)
    .optional()
    .describe('How long to wait for the CLI to exit before its window is killed (default 15).'),
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
