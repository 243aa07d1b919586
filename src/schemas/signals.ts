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

export const ChatContextState = z.enum(['current', 'degraded', 'unknown']);
export type ChatContextState = z.infer<typeof ChatContextState>;

export const KnownFailure = z.object({
  /** Stable id, e.g. `api_error_500`, `overloaded`, `rate_limited`. */
  kind: z.string(),
  /** The line of screen text it was read from (bounded). */
  message: z.string(),
});
export type KnownFailure = z.infer<typeof KnownFailure>;

/**
 * What one screen says about the turn, as the tracker's per-frame priority chain
 * (statecharts.md §5) needs it. Produced by a tool profile from one frame; pure data.
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
});
export type TurnSignals = z.infer<typeof TurnSignals>;

/** The parsed surface of one frame: the observation fields plus where they came from. */
export const ParsedSurface = z.object({
  availability: Availability,
  businessState: BusinessState,
  inputMode: InputMode,
  uiContext: z.string(),
  projectionText: z.string(),
});
export type ParsedSurface = z.infer<typeof ParsedSurface>;

/** A profile's verdict on one frame. */
export const ProfileResult = z.object({
  surface: ParsedSurface,
  signals: TurnSignals,
  /** Which detector and rule decided, for the journal's evidence (e.g. `claude_code@2/working`). */
  evidence: z.object({ detector: z.string(), rule: z.string() }),
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
