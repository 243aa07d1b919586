import { z } from '@hono/zod-openapi';
import type { OperationVerdict, Operations } from '../../terminal/operations.js';
import { Acceptability } from '../../terminal/operations.js';
import { Availability, BusinessState, InputMode } from '../observation.js';
import { ParseOutcome, ProbeErrorInfo, ProcessOutcome, TransportOutcome } from '../probe.js';
import type { JournalRecord } from '../record.js';
import { ChartName } from '../record.js';
import { ChatContextState, TriState } from '../signals.js';
import {
  CompletionAuthoritySchema,
  OutcomeWitnessSchema,
  TerminalState,
  TurnSourceSchema,
} from '../terminal-state.js';
import { defineOperation, TERMINAL_ERRORS, TerminalId } from './contract.js';
import { input } from './input.js';

/*
 * The original design's routes (`/houmao/terminals/{id}/state|input`): the same public state
 * and the same gate as `/v1`, under the original snake_case names, for clients written against
 * that design (docs/service.md). Nothing here decides anything: each field is a `/v1` field
 * renamed.
 */

const S = TerminalState.shape;

const HoumaoVerdict = z.object({ allowed: Acceptability, reason: z.string() });

/** One chart step of the terminal, newest last (from its journal's state records). */
export const HoumaoTransition = z.object({
  seq: z.number().int(),
  at: z.string(),
  /** Observation time (seconds) of the change. */
  t: z.number(),
  machine: ChartName,
  from: z.string(),
  to: z.string(),
  event: z.string(),
  turn_id: z.string().nullable(),
  rule: z.string().nullable(),
});
export type HoumaoTransition = z.infer<typeof HoumaoTransition>;

export const HoumaoState = z
  .object({
    terminal_id: z.string(),
    target: z.string().nullable(),
    tool: z.string(),
    tool_version: z.string().nullable(),
    tool_version_verified: z.boolean().nullable(),
    t: z.number(),
    diagnostics: z.object({
      availability: S.diagnostics.shape.availability,
      transport: TransportOutcome.nullable(),
      process: ProcessOutcome.nullable(),
      parse: ParseOutcome.nullable(),
      error: ProbeErrorInfo.nullable(),
    }),
    surface: z.object({
      availability: Availability,
      business_state: BusinessState,
      input_mode: InputMode,
      ui_context: z.string(),
      accepting_input: TriState,
      editing_input: TriState,
      ready_posture: TriState,
      blocked_prompt: z.string().nullable(),
      active_reasons: z.array(z.string()),
    }),
    turn: z.object({
      phase: S.turn.shape.phase,
      since: z.number().nullable(),
      current: z
        .object({ id: z.string(), source: TurnSourceSchema, started_at: z.number() })
        .nullable(),
    }),
    last_turn: z.object({
      result: S.lastTurn.shape.result,
      source: S.lastTurn.shape.source,
      turn_id: z.string().nullable(),
      at: z.number().nullable(),
      /** Which witness decided the outcome; null under the screen alone. */
      witness: OutcomeWitnessSchema.nullable(),
    }),
    /** The completion witness, when the terminal has a session record to read; else null. */
    witness: z
      .object({
        authority: CompletionAuthoritySchema,
        record: z.enum(['searching', 'following', 'stepped_aside']),
        file: z.string().nullable(),
        why: z.string().nullable(),
      })
      .nullable(),
    readiness: z.object({ status: S.readiness.shape.status, since: z.number().nullable() }),
    completion: z
      .object({
        turn_id: z.string(),
        status: S.completion.unwrap().shape.status,
        saw_working: z.boolean(),
        saw_projection_change: z.boolean(),
      })
      .nullable(),
    chat_context: z.object({
      state: ChatContextState,
      /** Why the context reads degraded, in the tool's terms; absent otherwise. */
      degraded_error_type: z.string().optional(),
    }),
    stability: z.object({ stable: z.boolean(), stable_for_seconds: z.number() }),
    watchdog: z.object({
      state: S.watchdog.shape.state,
      session_started_at: z.number().nullable(),
      budget_seconds: z.number(),
    }),
    session: z.object({
      status: S.session.shape.status,
      stop_reason_code: z.string().nullable(),
    }),
    /** The same verdicts as `/v1` (docs/contracts.md, operation acceptability). */
    operations: z.object({
      send_input: HoumaoVerdict,
      interrupt: HoumaoVerdict,
      resume: HoumaoVerdict,
      detach: HoumaoVerdict,
    }),
    /** The terminal's latest chart steps, oldest first (at most {@link RECENT_TRANSITIONS}). */
    recent_transitions: z.array(HoumaoTransition),
  })
  .openapi('HoumaoTerminalState');
export type HoumaoState = z.infer<typeof HoumaoState>;

export const HoumaoInputAccepted = z.object({ turn_id: z.string() }).openapi('HoumaoInputAccepted');

/** How many chart steps `recent_transitions` holds at most. */
export const RECENT_TRANSITIONS = 20;

const verdict = (v: OperationVerdict) => ({ allowed: v.allowed, reason: v.reason });

/** The latest chart steps in a terminal's records, oldest first. */
export function recentTransitions(
  records: readonly JournalRecord[],
  max = RECENT_TRANSITIONS,
): HoumaoTransition[] {
  const out: HoumaoTransition[] = [];
  for (const r of records) {
    if (r.kind !== 'state') continue;
    for (const x of r.transitions) {
      out.push({
        seq: r.seq,
        at: r.at,
        t: r.t,
        machine: x.machine,
        from: x.from,
        to: x.to,
        event: x.event,
        turn_id: x.turnId ?? null,
        rule: x.rule ?? null,
      });
    }
  }
  return out.slice(-max);
}

/** The public state under the original design's names. */
export function toHoumao(
  s: TerminalState,
  ops: Operations,
  transitions: HoumaoTransition[],
): HoumaoState {
  return {
    terminal_id: s.terminalId,
    target: s.target,
    tool: s.tool,
    tool_version: s.toolVersion,
    tool_version_verified: s.toolVersionVerified,
    t: s.t,
    diagnostics: { ...s.diagnostics },
    surface: {
      availability: s.surface.availability,
      business_state: s.surface.businessState,
      input_mode: s.surface.inputMode,
      ui_context: s.surface.uiContext,
      accepting_input: s.surface.acceptingInput,
      editing_input: s.surface.editingInput,
      ready_posture: s.surface.readyPosture,
      blocked_prompt: s.surface.blockedPrompt,
      active_reasons: [...s.surface.activeReasons],
    },
    turn: {
      phase: s.turn.phase,
      since: s.turn.since,
      current: s.turn.current
        ? {
            id: s.turn.current.id,
            source: s.turn.current.source,
            started_at: s.turn.current.startedAt,
          }
        : null,
    },
    last_turn: {
      result: s.lastTurn.result,
      source: s.lastTurn.source,
      turn_id: s.lastTurn.turnId,
      at: s.lastTurn.at,
      witness: s.lastTurn.witness ?? null,
    },
    witness: s.witness ? { ...s.witness } : null,
    readiness: { status: s.readiness.status, since: s.readiness.since },
    completion: s.completion
      ? {
          turn_id: s.completion.turnId,
          status: s.completion.status,
          saw_working: s.completion.sawWorking,
          saw_projection_change: s.completion.sawProjectionChange,
        }
      : null,
    chat_context:
      s.chatContext.state === 'degraded'
        ? {
            state: 'degraded',
            degraded_error_type: s.chatContext.degradedErrorType ?? 'unknown',
          }
        : { state: s.chatContext.state },
    stability: { stable: s.stability.stable, stable_for_seconds: s.stability.stableForSeconds },
    watchdog: {
      state: s.watchdog.state,
      session_started_at: s.watchdog.sessionStartedAt,
      budget_seconds: s.watchdog.budgetSeconds,
    },
    session: { status: s.session.status, stop_reason_code: s.session.stopReasonCode },
    operations: {
      send_input: verdict(ops.sendInput),
      interrupt: verdict(ops.interrupt),
      resume: verdict(ops.resume),
      detach: verdict(ops.detach),
    },
    recent_transitions: transitions,
  };
}

const HOUMAO_ONLY = {
  cli: 'the CLI speaks `/v1`; these routes are for clients written against the original design',
  mcp: 'the MCP tools speak `/v1`; these routes are for clients written against the original design',
  fleet:
    'a fleet server serves `/v1` only; a client of the original design talks to the paneward of its host',
} as const;

/** A terminal's public state under the original design's names (`GET /houmao/terminals/{id}/state`). */
export const houmaoState = defineOperation({
  name: 'houmaoState',
  summary: "A terminal's public state under the original design's names (snake_case)",
  input: z.strictObject({ id: TerminalId }),
  output: HoumaoState,
  errors: TERMINAL_ERRORS,
  http: { method: 'get', path: '/houmao/terminals/{id}/state' },
  notServed: HOUMAO_ONLY,
});

/** `input` under the original design's names (`POST /houmao/terminals/{id}/input`). */
export const houmaoInput = defineOperation({
  name: 'houmaoInput',
  summary:
    'Type a prompt literally and submit it, as `POST /v1/terminals/{id}/input` (the same gate)',
  input: input.input,
  output: HoumaoInputAccepted,
  errors: input.errors,
  http: { method: 'post', path: '/houmao/terminals/{id}/input' },
  notServed: HOUMAO_ONLY,
});
