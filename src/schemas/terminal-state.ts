import { z } from 'zod';
import { Availability, BusinessState, InputMode } from './observation.js';
import { ParseOutcome, ProbeErrorInfo, ProcessOutcome, TransportOutcome } from './probe.js';
import { ChatContextState, Question, TriState } from './signals.js';

export const TurnSourceSchema = z.enum(['explicit_input', 'surface_inference']);
export const CompletionAuthoritySchema = z.enum(['surface', 'markers', 'both']);
export const OutcomeWitnessSchema = z.enum(['surface', 'record', 'hook', 'observer', 'both']);

/** The public state of one terminal (docs/contracts.md §3): library, HTTP, replay and SSE. */
export const TerminalState = z.object({
  terminalId: z.string(),
  /** The pane as attached (`session:window.pane` or `%N`); null in a replay. */
  target: z.string().nullable(),
  tool: z.string(),
  toolVersion: z.string().nullable(),
  /**
   * Whether `toolVersion` is one the tool's profile was verified against: false for any other
   * release (read with the nearest vocabulary, or not at all under `verifiedOnly`); null while
   * the version is not known, or for a tool with no verified release (a caller's own profile).
   */
  toolVersionVerified: z.boolean().nullable(),
  /** Observation time (seconds) this state is as of. */
  t: z.number(),
  diagnostics: z.object({
    availability: z.enum(['unknown', 'available', 'unavailable', 'tui_down', 'error']),
    transport: TransportOutcome.nullable(),
    process: ProcessOutcome.nullable(),
    parse: ParseOutcome.nullable(),
    error: ProbeErrorInfo.nullable(),
  }),
  surface: z.object({
    availability: Availability,
    businessState: BusinessState,
    inputMode: InputMode,
    uiContext: z.string(),
    acceptingInput: TriState,
    editingInput: TriState,
    readyPosture: TriState,
    blockedPrompt: z.string().nullable(),
    /** The dialog waiting for the operator, read as a question (docs/questions.md); null: none. */
    question: Question.nullable(),
    activeReasons: z.array(z.string()),
  }),
  turn: z.object({
    phase: z.enum(['unknown', 'ready', 'active']),
    /** Observation time the phase last changed (null before the first frame). */
    since: z.number().nullable(),
    current: z
      .object({ id: z.string(), source: TurnSourceSchema, startedAt: z.number() })
      .nullable(),
  }),
  lastTurn: z.object({
    result: z.enum(['none', 'success', 'interrupted', 'known_failure']),
    source: z.enum(['none', 'explicit_input', 'surface_inference']),
    turnId: z.string().nullable(),
    at: z.number().nullable(),
    /**
     * Which witness decided the outcome (docs/witness.md): the screen (`surface`), the CLI's
     * session record (`record`), a hook the CLI ran (`hook`, docs/hooks.md), or the screen and
     * one of those agreeing (`both`). Absent under the screen alone.
     */
    witness: OutcomeWitnessSchema.optional(),
  }),
  /**
   * The terminal's completion witness (docs/witness.md), when it has a session record to read:
   * the authority it runs under, and where its record is.
   */
  witness: z
    .object({
      authority: CompletionAuthoritySchema,
      record: z.enum(['searching', 'following', 'stepped_aside']),
      /** The record file followed (or last followed), when one was found. */
      file: z.string().nullable(),
      /**
       * Why the record's witness stepped aside (the piece its reader did not know), or what it
       * last passed over while it searches or follows on (a line over the cap, a record that is
       * not a regular file). At most 160 characters, never the record's text.
       */
      why: z.string().nullable(),
    })
    .optional(),
  readiness: z.object({
    status: z.enum(['waiting', 'unknown', 'stalled', 'ready', 'blocked', 'failed']),
    /** Observation time the status last changed (null before the first frame). */
    since: z.number().nullable(),
  }),
  completion: z
    .object({
      turnId: z.string(),
      status: z.enum([
        'waiting',
        'in_progress',
        'candidate_complete',
        'unknown',
        'stalled',
        'completed',
        'blocked',
        'failed',
      ]),
      sawWorking: z.boolean(),
      sawProjectionChange: z.boolean(),
      payload: z.unknown().optional(),
    })
    .nullable(),
  /**
   * The chat context's health (docs/contracts.md): `degraded` comes with `degradedErrorType`, the
   * tool-scoped reason the screen gives (a failed compaction, an overflowing window).
   */
  chatContext: z.object({
    state: ChatContextState,
    degradedErrorType: z.string().nullable().optional(),
  }),
  stability: z.object({ stable: z.boolean(), stableForSeconds: z.number() }),
  watchdog: z.object({
    state: z.enum(['disabled', 'armed', 'fired', 'finished']),
    sessionStartedAt: z.number().nullable(),
    budgetSeconds: z.number(),
  }),
  session: z.object({
    status: z.enum(['running', 'blocked', 'finished']),
    stopReasonCode: z.string().nullable(),
  }),
});
export type TerminalState = z.infer<typeof TerminalState>;
