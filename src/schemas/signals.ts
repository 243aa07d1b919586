import { z } from 'zod';
import { Availability, BusinessState, InputMode } from './observation.js';

export const TriState = z.enum(['yes', 'no', 'unknown']);
export type TriState = z.infer<typeof TriState>;

/** Why a turn is blocked on the operator. */
export const BlockedPromptKind = z.enum([
  'tool_permission',
  'trust_folder',
  'onboarding',
  'login',
  'other',
]);
export type BlockedPromptKind = z.infer<typeof BlockedPromptKind>;

/**
 * The health of the chat's context as the screen shows it: `current` (nothing wrong drawn),
 * `degraded` (the CLI says, next to its prompt, that the context is in trouble: a compaction
 * failed, the context window overflowed), `unknown` (no surface to read). Degraded is recoverable
 * evidence, not a reset and not a failure: it never decides a turn's outcome by itself.
 */
export const ChatContextState = z.enum(['current', 'degraded', 'unknown']);
export type ChatContextState = z.infer<typeof ChatContextState>;

/**
 * What kind of failure a CLI reports, the same names for every CLI: `rate_limited` (429, quota),
 * `overloaded` (the provider says it is overloaded: 529, 503), `server_error` (other 5xx),
 * `request_rejected` (other 4xx), `auth_failed` (401, 403), `connection_failed` (no answer, a
 * cut stream, a timeout), `other` (an error the CLI prints without saying which).
 */
export const FailureKind = z.enum([
  'rate_limited',
  'overloaded',
  'server_error',
  'request_rejected',
  'auth_failed',
  'connection_failed',
  'other',
]);
export type FailureKind = z.infer<typeof FailureKind>;

export const KnownFailure = z.object({
  kind: FailureKind,
  /** The line of screen text it was read from (bounded). */
  message: z.string(),
  /** The HTTP status the screen names, when it names one. */
  status: z.number().int().optional(),
});
export type KnownFailure = z.infer<typeof KnownFailure>;

/**
 * A question that holds the agent until the operator answers, the same names for every CLI:
 * a tool or command needs permission, the folder is not trusted yet, a login or API key is
 * asked for, a first-run question, or the CLI asks whether to retry after an error.
 */
export const DialogContext = z.enum([
  'permission_prompt',
  'trust_prompt',
  'login_prompt',
  'onboarding_prompt',
  'retry_prompt',
]);
export type DialogContext = z.infer<typeof DialogContext>;

/** Why a dialog blocks the turn, per dialog context. */
export const BLOCKED_BY_DIALOG: Readonly<Record<DialogContext, BlockedPromptKind>> = {
  permission_prompt: 'tool_permission',
  trust_prompt: 'trust_folder',
  login_prompt: 'login',
  onboarding_prompt: 'onboarding',
  retry_prompt: 'other',
};

/**
 * Where a frame's keyboard focus is, as every profile names it: nothing drawn (`blank`), the
 * CLI gone (`exited`), a screen that matches none of the profile's known shapes
 * (`unrecognised`), a dialog (see {@link DialogContext}), the prompt box before it takes input
 * (`startup`), the prompt box (`normal_prompt`, `error` when the latest turn failed), a
 * slash-command menu over it (`slash_command`), a panel the CLI draws over the prompt that asks
 * nothing (`overlay`), or a screen of the CLI with no prompt box the profile can place
 * (`unplaced`).
 */
export const UiContext = z.enum([
  'blank',
  'exited',
  'unrecognised',
  ...DialogContext.options,
  'startup',
  'normal_prompt',
  'error',
  'slash_command',
  'overlay',
  'unplaced',
]);
export type UiContext = z.infer<typeof UiContext>;

/**
 * What one screen says about the turn, as the tracker's per-frame priority chain
 * (docs/statecharts.md §5) needs it. Produced by a tool profile from one frame; pure data.
 */
export const TurnSignals = z.object({
  /** The prompt box is there and typing goes into it. */
  acceptingInput: TriState,
  /** The prompt box holds a draft the user is typing. */
  editingInput: TriState,
  /** The surface is an idle prompt waiting for a new turn. */
  readyPosture: TriState,
  /** Reasons the agent is working right now (spinner, "esc to interrupt", ...); empty: none. */
  activeReasons: z.array(z.string()),
  /** The latest turn shows it was interrupted. */
  interrupted: z.boolean(),
  /** The latest turn shows a failure the tool reports (API error, overload, rate limit). */
  knownFailure: KnownFailure.nullable(),
  /** The latest turn looks finished with a reply (still needs an armed turn and settling). */
  successCandidate: z.boolean(),
  /** A prompt waits for the operator (tool permission, trust dialog, ...). */
  blockedPrompt: BlockedPromptKind.nullable(),
  /** An interactive surface the profile cannot place (menus, pickers): posture is lost. */
  ambiguous: z.boolean(),
  chatContext: ChatContextState,
  /**
   * Why the context reads `degraded`, in the tool's own terms (`codex_remote_compact_server_error`,
   * ...; `unknown` when the CLI's message names no known cause); absent otherwise.
   */
  degradedErrorType: z.string().optional(),
});
export type TurnSignals = z.infer<typeof TurnSignals>;

/** The parsed surface of one frame: the observation fields plus where they came from. */
export const ParsedSurface = z.object({
  availability: Availability,
  businessState: BusinessState,
  inputMode: InputMode,
  uiContext: UiContext,
  projectionText: z.string(),
});
export type ParsedSurface = z.infer<typeof ParsedSurface>;

/** What a question drawn on screen is about (docs/questions.md). */
export const QuestionKind = z.enum(['tool_permission', 'trust_folder', 'login', 'other']);
export type QuestionKind = z.infer<typeof QuestionKind>;

/** One answer a dialog offers: a stable id (`allow_once`, `deny`, `trust`, ...) and its label as drawn. */
export const QuestionChoice = z.object({ id: z.string(), label: z.string() });
export type QuestionChoice = z.infer<typeof QuestionChoice>;

/**
 * A dialog read as a question: its id is a short hash of the dialog's normalised text, so
 * another dialog has another id; `subject` is the command or file as drawn. A dialog the
 * profile does not fully recognise is `other` with no choices: nothing can answer it.
 */
export const Question = z.object({
  id: z.string(),
  kind: QuestionKind,
  subject: z.string().nullable(),
  choices: z.array(QuestionChoice),
});
export type Question = z.infer<typeof Question>;

/** A question as the profile read it: each choice with the keys that give it (never public). */
export const ReadQuestion = Question.extend({
  choices: z.array(
    QuestionChoice.extend({
      keys: z.array(z.string()),
      /**
       * True when these keys do not give the choice yet but open the CLI's confirmation of it:
       * a second dialog, read as a question whose `confirms` is this choice's id, which the
       * answer then gives by that question's choice of the same id (docs/questions.md).
       */
      confirmation: z.literal(true).optional(),
    }),
  ),
  /** This dialog is the CLI's confirmation of the choice of this id made in the dialog before. */
  confirms: z.string().optional(),
  /**
   * Present when the keys of some choices depend on which option is highlighted, and the
   * highlight is drawn by colour alone: those keys are read from a capture with escapes
   * (`Screen.ansi`), taken right before an answer is typed. Until then (or when the highlight
   * cannot be read without a guess) those choices carry no keys and `problem` says why; null
   * once every choice has its keys.
   */
  highlight: z.object({ problem: z.string().nullable() }).optional(),
});
export type ReadQuestion = z.infer<typeof ReadQuestion>;

/** A profile's verdict on one frame. */
export const ProfileResult = z.object({
  surface: ParsedSurface,
  signals: TurnSignals,
  /** Which detector and rule decided, for the journal's evidence (e.g. `claude_code@2/working`). */
  evidence: z.object({ detector: z.string(), rule: z.string() }),
  /**
   * False when the screen matches none of the profile's known shapes (a new release drew
   * something else): the surface is then `unknown`, so readiness can only be `unknown`, never a
   * guess. Every shipped profile sets it; a result without it counts as recognised.
   */
  recognised: z.boolean().optional(),
  /** The dialog on screen as a question, with the keys of each choice; absent or null: none. */
  question: ReadQuestion.nullable().optional(),
});
export type ProfileResult = z.infer<typeof ProfileResult>;

/** Signals of a frame that says nothing: every tri-state unknown, no evidence of anything. */
export const NO_SIGNALS: Readonly<TurnSignals> = Object.freeze({
  acceptingInput: 'unknown',
  editingInput: 'unknown',
  readyPosture: 'unknown',
  activeReasons: [],
  interrupted: false,
  knownFailure: null,
  successCandidate: false,
  blockedPrompt: null,
  ambiguous: false,
  chatContext: 'unknown',
});
