import { z } from 'zod';
import { TerminalView, TurnPayload, TurnResponse } from '../schemas/operations/index.js';

/** The longest one call waits for a turn; a longer wait continues with `wait_for_turn`. */
export const MAX_WAIT_SECONDS = 3600;
/** How long `send_prompt` and `wait_for_turn` wait when not told. */
export const DEFAULT_WAIT_SECONDS = 300;

/** What the server tells a client about itself when it connects. */
export const SERVER_INSTRUCTIONS = `paneward supervises AI coding-agent CLIs (Claude Code, Codex, Gemini CLI, …) running in tmux panes and says truthfully whether each is ready, working, finished, interrupted, failed, blocked on a prompt for the operator, stalled or gone.
Use list_terminals to see them, spawn to start a new one and stop to end one it started, terminal_state to see one (with its screen), send_prompt to give one a task and wait for the outcome of that turn, wait_for_turn to keep waiting after a timeout, interrupt to stop a running turn, resume to restart a session the watchdog blocked, answer_question to answer the question a dialog asks.
Every answer carries the operation table: whether send_prompt, interrupt, resume and answer_question are accepted now, and why. A refused call typed nothing.`;

// ---- what the tools take --------------------------------------------------------------------

export const TerminalArg = z
  .string()
  .min(1, 'must name a terminal')
  .max(200)
  .describe(
    'The terminal: its id as list_terminals gives it (e.g. "work-1"), or the tmux pane it was attached as ("%3", "session:window.pane").',
  );

export const WaitSeconds = z
  .number()
  .positive('must be a positive number of seconds')
  .max(MAX_WAIT_SECONDS, `must be at most ${MAX_WAIT_SECONDS} seconds`)
  .default(DEFAULT_WAIT_SECONDS)
  .describe(
    `How long to wait for the turn to end, in seconds (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}). When it runs out the answer is result "timeout" with the turn id: the turn goes on, and wait_for_turn waits for it again.`,
  );

// ---- what the tools answer (structuredContent) ----------------------------------------------

/*
 * A tool's answer is a projection of the operation's own answer, field by field: each field is
 * the contract's schema (its enum, its nullability), only renamed where a model reads it better
 * (`readiness` for `readiness.status`, `sendPrompt` for `sendInput`).
 */
const V = TerminalView.shape;
const R = TurnResponse.shape;

export const Verdict = V.operations.shape.sendInput;

/** One terminal as the tools describe it: where it stands, why, and what it accepts now. */
export const TerminalSummary = z.object({
  terminalId: V.terminalId,
  target: V.target,
  tool: V.tool,
  toolVersion: V.toolVersion,
  /** False when the running release is not one paneward was verified against; null: unknown. */
  toolVersionVerified: V.toolVersionVerified,
  /** `ready`, `waiting` (working), `blocked` (a prompt for the operator), `unknown`, … */
  readiness: V.readiness.shape.status,
  /** What the screen shows: `idle`, `working`, … */
  activity: V.surface.shape.businessState,
  blockedPrompt: V.surface.shape.blockedPrompt,
  /** The dialog waiting for the operator as a question: answer it with answer_question. */
  question: V.surface.shape.question,
  availability: V.diagnostics.shape.availability,
  turn: z.object({
    phase: V.turn.shape.phase,
    currentTurnId: V.turn.shape.current.unwrap().shape.id.nullable(),
  }),
  lastTurn: z.object({ turnId: V.lastTurn.shape.turnId, outcome: V.lastTurn.shape.result }),
  session: V.session,
  /**
   * The chat context's health: `degraded` when the CLI says next to its prompt that the context
   * is in trouble (a failed compaction, an overflowing window), with the reason in its terms.
   */
  chatContext: z.object({
    state: V.chatContext.shape.state,
    degradedErrorType: V.chatContext.shape.degradedErrorType.unwrap(),
  }),
  /** The operation table: whether each operation is accepted now, and why. */
  operations: z.object({
    sendPrompt: V.operations.shape.sendInput,
    interrupt: V.operations.shape.interrupt,
    resume: V.operations.shape.resume,
    answerQuestion: V.operations.shape.answer,
  }),
});
export type TerminalSummary = z.infer<typeof TerminalSummary>;

const Reply = TurnPayload.shape.reply;

export const TurnOutcome = z.object({
  terminalId: V.terminalId,
  turnId: R.turnId,
  /** How the wait ended: the turn `completed` or `failed`, or `timeout` (it may still run). */
  result: R.result,
  /** The turn's outcome: `success`, `interrupted`, `known_failure`, or `none` (not known yet). */
  outcome: R.lastTurn.shape.result,
  /** Why, in a sentence. */
  reason: z.string(),
  /** How the turn's completion ended (`completed`, `failed`), or null when it has not. */
  completion: R.completion.unwrap().shape.status.nullable(),
  /**
   * What the agent answered in this turn (docs/contracts.md §6): its text, read from the CLI's
   * session record (`record`) or from the screen (`screen`); null while the turn runs or when
   * paneward keeps no payload for it. `truncated`: cut at 64 KiB, or its start had scrolled out.
   */
  reply: Reply,
  /** How long the turn took, in ms, once it ended. */
  durationMs: TurnPayload.shape.timing.shape.durationMs,
});
export type TurnOutcome = z.infer<typeof TurnOutcome>;

export const Accepted = z.object({
  ok: z.literal(true),
  terminalId: z.string(),
  state: TerminalSummary,
});

// ---- answers as text a model reads ----------------------------------------------------------

export function summarize(v: TerminalView): TerminalSummary {
  return {
    terminalId: v.terminalId,
    target: v.target,
    tool: v.tool,
    toolVersion: v.toolVersion,
    toolVersionVerified: v.toolVersionVerified,
    readiness: v.readiness.status,
    activity: v.surface.businessState,
    blockedPrompt: v.surface.blockedPrompt,
    question: v.surface.question,
    availability: v.diagnostics.availability,
    turn: { phase: v.turn.phase, currentTurnId: v.turn.current?.id ?? null },
    lastTurn: { turnId: v.lastTurn.turnId, outcome: v.lastTurn.result },
    session: { status: v.session.status, stopReasonCode: v.session.stopReasonCode },
    chatContext: {
      state: v.chatContext.state,
      degradedErrorType: v.chatContext.degradedErrorType ?? null,
    },
    operations: {
      sendPrompt: v.operations.sendInput,
      interrupt: v.operations.interrupt,
      resume: v.operations.resume,
      answerQuestion: v.operations.answer,
    },
  };
}

export function describeTerminal(s: TerminalSummary): string {
  const name = `${s.terminalId}${s.target ? ` (pane ${s.target})` : ''}: ${s.tool}${s.toolVersion ? ` ${s.toolVersion}` : ''}${s.toolVersionVerified === false ? ' (unverified)' : ''}`;
  const turn = s.turn.currentTurnId ? `, turn ${s.turn.currentTurnId} running` : '';
  const last = s.lastTurn.turnId
    ? `; last turn ${s.lastTurn.turnId}: ${s.lastTurn.outcome}`
    : '; no turn yet';
  const blocked = s.blockedPrompt ? ` (on screen: ${s.blockedPrompt})` : '';
  const op = (name: string, v: z.infer<typeof Verdict>) => `${name}: ${v.allowed} (${v.reason})`;
  const context =
    s.chatContext.state === 'degraded'
      ? `; chat context degraded (${s.chatContext.degradedErrorType ?? 'unknown'})`
      : '';
  const q = s.question;
  const asks = q
    ? [
        `  question ${q.id} (${q.kind}${q.subject ? `: ${q.subject}` : ''}): ${
          q.choices.length === 0
            ? 'no choice paneward can give; a person must answer it in the pane'
            : q.choices.map((c) => `${c.id} = "${c.label}"`).join('; ')
        }`,
      ]
    : [];
  return [
    `${name} — ${s.readiness}${blocked}${turn}${last}${context}; session ${s.session.status}${s.session.stopReasonCode ? ` (${s.session.stopReasonCode})` : ''}`,
    `  ${op('send_prompt', s.operations.sendPrompt)}; ${op('interrupt', s.operations.interrupt)}; ${op('resume', s.operations.resume)}${q ? `; ${op('answer_question', s.operations.answerQuestion)}` : ''}`,
    ...asks,
  ].join('\n');
}

export function outcomeOf(
  terminalId: string,
  r: TurnResponse,
  timeoutSeconds: number,
): TurnOutcome {
  const own = r.lastTurn.turnId === r.turnId;
  const outcome = own ? r.lastTurn.result : 'none';
  let reason: string;
  if (r.result === 'timeout') {
    reason = `the turn had not ended after ${timeoutSeconds} s; it may still be running: wait again with wait_for_turn (terminal "${terminalId}", turnId "${r.turnId}") or stop it with interrupt`;
  } else if (outcome === 'success') {
    reason = 'the agent finished the turn and waits for a prompt again';
  } else if (outcome === 'interrupted') {
    reason = 'the turn was interrupted before the agent finished it';
  } else if (outcome === 'known_failure') {
    reason =
      'the agent showed a failure for this turn (an API error, say); read its screen with terminal_state';
  } else if (r.result === 'failed') {
    reason = `the turn's completion failed (${r.completion?.status ?? 'unknown'}) with no outcome on screen; read the screen with terminal_state`;
  } else {
    reason =
      'the turn ended, but its outcome could not be read from the screen; read it with terminal_state';
  }
  return {
    terminalId,
    turnId: r.turnId,
    result: r.result,
    outcome,
    reason,
    completion: r.completion?.status ?? null,
    reply: r.payload?.ended ? r.payload.reply : null,
    durationMs: r.payload?.timing.durationMs ?? null,
  };
}

export function describeOutcome(o: TurnOutcome): string {
  const head = `${o.turnId} on ${o.terminalId}: ${o.result === 'timeout' ? 'timeout' : o.outcome} — ${o.reason}`;
  if (o.reply === null || o.reply.source === null) return head;
  const from = o.reply.source === 'record' ? 'its session record' : 'the screen';
  const cut = o.reply.truncated ? ', not whole' : '';
  return `${head}\n\nThe agent's reply (from ${from}${cut}):\n${o.reply.text}`;
}
