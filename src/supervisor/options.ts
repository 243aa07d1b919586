import type { SchedulerLike } from 'rxjs';
import type { InspectionEvent } from 'xstate';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { TmuxTransport } from '../observe/transport.js';
import type { ProfileFactory } from '../profiles/index.js';
import { ChartSettings, chartSettingsConflict, KernelConfig } from '../schemas/kernel.js';
import { PromptText } from '../schemas/prompt.js';
import { Target } from '../schemas/target.js';
import { CompletionAuthoritySchema, type TerminalState } from '../schemas/terminal-state.js';
import type { CompletionObserver } from '../terminal/observers.js';
import type { TurnPayload } from '../schemas/turn-payload.js';

export const SupervisorOptions = z.strictObject({
  /** tmux socket name (`-L`). */
  socketName: z.string().min(1).optional(),
  /** tmux socket path (`-S`). */
  socketPath: z.string().min(1).optional(),
  /**
   * Where the journal lives. Default `$XDG_STATE_HOME/paneward` (else `~/.local/state/paneward`);
   * `null` keeps records in memory only (nothing survives the process).
   */
  dataDir: z.string().min(1).nullable().optional(),
  /** Timer and policy settings (docs/statecharts.md §3) plus the default session wall-clock budget. */
  config: KernelConfig.partial()
    .extend({
      /** Budget given to every terminal attached without its own; 0 or absent: no watchdog. */
      sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
    })
    .strict()
    .optional(),
  /**
   * The strict gate: do not read the screens of an agent CLI newer than every version its
   * profile was verified against (such a pane reads as unrecognised: readiness `unknown`, never
   * a success). Off by default: a newer release is read with the newest vocabulary and its
   * state says `toolVersionVerified: false` (docs/profiles.md, "Versions and drift").
   */
  verifiedOnly: z.boolean().default(false),
  /**
   * Kept for callers written when newer releases were not read by default: `true` is now the
   * default and changes nothing; it cannot be combined with `verifiedOnly: true`.
   */
  readUnverifiedVersions: z.boolean().optional(),
  /**
   * Where frames come from: `control` (one `tmux -C` client per server, panes captured when
   * they change) or `polling` (a tmux process per pane per interval). Control mode needs the
   * supervisor's own transport on a real clock; with a transport or scheduler of the caller's,
   * polling is used.
   */
  source: z.enum(['control', 'polling']).default('control'),
  /**
   * Who decides turn outcomes (docs/witness.md): the screen (`surface`), the CLI's session
   * record, hooks or a completion observer (`markers`), or both (`both`, the default; with no
   * record, hook or observer speaking, the screen alone decides).
   */
  completionAuthority: CompletionAuthoritySchema.optional(),
  /** Restart backoff of a terminal's runtime: first delay and cap, in seconds. */
  restartBackoff: z
    .strictObject({
      initialSeconds: z.number().positive().max(3600),
      maxSeconds: z.number().positive().max(3600),
    })
    .default({ initialSeconds: 0.5, maxSeconds: 30 }),
});
export type SupervisorOptionsInput = z.input<typeof SupervisorOptions> & {
  /** Use this transport instead of one built from the socket options. */
  transport?: TmuxTransport;
  /** The one clock: wakes every timer and stamps every record (epoch ms). */
  scheduler?: SchedulerLike;
  /** Extra tool profiles by id (an agent CLI paneward does not ship a profile for). */
  profiles?: Readonly<Record<string, ProfileFactory>>;
  /**
   * Sees every event of the actor system (supervisor → terminals → charts), as XState's
   * `inspect` option: pass `createBrowserInspector().inspect` or any observer.
   */
  inspect?: (event: InspectionEvent) => void;
  /**
   * The environment a spawn finds its CLI's executable with (its `PATH`, unless the request
   * gives one); default: this process's. A demo puts its installed CLIs' folders on it.
   */
  spawnEnv?: NodeJS.ProcessEnv;
  /**
   * Completion observers (docs/witness.md): each watches every turn of every terminal (its
   * `observe` may return nothing for a terminal it is not about) and may tell how the turn
   * ended, a witness beside the screen under the terminal's completion authority.
   */
  completionObservers?: readonly CompletionObserver[];
};

export const AttachRequest = z.strictObject({
  target: Target,
  /** Profile id; detected from the pane's processes when absent. */
  tool: z.string().min(1).optional(),
  toolVersion: z.string().min(1).optional(),
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'a letter or digit, then letters, digits, dot, dash or underscore, at most 64 in all',
    )
    .optional(),
  /** Session wall-clock budget for this terminal (docs/statecharts.md §7), at most 30 days; 0: no watchdog. */
  sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
  /** This terminal's chart settings (stall clock, settle, stability, stale-active windows). */
  config: ChartSettings.optional(),
  /**
   * Who decides this terminal's turn outcomes (docs/witness.md): the screen (`surface`), the
   * CLI's session record (`markers`), or both; default the supervisor's.
   */
  completionAuthority: CompletionAuthoritySchema.optional(),
});
export type AttachRequest = z.input<typeof AttachRequest>;

/** What `waitForTurn` resolves with. */
export interface TurnResult {
  turnId: string;
  /** How the turn's completion actor ended (`completed` or `failed`). */
  result: 'completed' | 'failed';
  completion: NonNullable<TerminalState['completion']>;
  lastTurn: TerminalState['lastTurn'];
  /**
   * What the turn answered: its reply text, evidence and timing (docs/contracts.md §6); null
   * when it is not kept (a turn restored from the journal after a restart).
   */
  payload: TurnPayload | null;
}

/** How long one sample of a pane, or one journal append until acknowledged, took. */
export type Telemetry =
  { kind: 'sample'; terminalId: string; ms: number } | { kind: 'append'; ms: number };

/** A restart of a terminal's runtime, as recorded. */
export interface RestartRecord {
  terminalId: string;
  attempt: number;
  delaySeconds: number;
  error: string;
  at: string;
}

export const WaitOptions = z.strictObject({
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1)
    .optional(),
  signal: z.instanceof(AbortSignal).optional(),
});
export const SubmitOptions = z.strictObject({
  force: z.boolean().optional(),
  signal: z.instanceof(AbortSignal).optional(),
});

/** An input that failed its schema: `invalid_input`, naming the fields. */
export function invalid(what: string, error: z.ZodError): PanewardError {
  return new PanewardError('invalid_input', `${what}: ${describeZodError(error)}`, {
    details: error.issues,
  });
}

/** Parses the supervisor's options, and its chart settings apart from the default budget. */
export function parseSupervisorOptions(rest: z.input<typeof SupervisorOptions>): {
  options: z.infer<typeof SupervisorOptions>;
  config: KernelConfig;
} {
  const parsed = SupervisorOptions.safeParse(rest);
  if (!parsed.success) throw invalid('supervisor options', parsed.error);
  if (parsed.data.verifiedOnly && parsed.data.readUnverifiedVersions === true) {
    throw new PanewardError(
      'invalid_input',
      'supervisor options: field `readUnverifiedVersions`: true contradicts `verifiedOnly: true` ' +
        '(newer releases are read by default; `verifiedOnly` turns that off)',
    );
  }
  const config = KernelConfig.parse(
    Object.fromEntries(
      Object.entries(parsed.data.config ?? {}).filter(([k]) => k !== 'sessionWallClockSeconds'),
    ),
  );
  const conflict = chartSettingsConflict(config);
  if (conflict !== null) {
    throw new PanewardError(
      'invalid_input',
      `supervisor options: field \`config.staleActiveSeconds\`: ${conflict}`,
    );
  }
  return { options: parsed.data, config };
}

/** Checks a prompt and its options before anything is typed. */
export function checkSubmit(text: string, opts: unknown): z.infer<typeof SubmitOptions> {
  if (typeof text !== 'string' || text.length === 0) {
    throw new PanewardError(
      'invalid_input',
      'submit: field `text`: a non-empty string is required',
    );
  }
  const t = PromptText.safeParse(text);
  if (!t.success) {
    // The issues name the field and the character, never the text.
    throw new PanewardError(
      'invalid_input',
      `submit: field \`text\`: ${t.error.issues.map((i) => i.message).join('; ')}`,
    );
  }
  const o = SubmitOptions.safeParse(opts);
  if (!o.success) throw invalid('submit', o.error);
  return o.data;
}
