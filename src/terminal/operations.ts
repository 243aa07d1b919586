import { z } from 'zod';
import { isNewerThanVerifiedVersion, verifiedVersionsOf } from '../profiles/index.js';
import type { TerminalState } from '../schemas/terminal-state.js';

/** Whether an operation is acceptable now: `wait` means not yet, but soon by itself. */
export const Acceptability = z.enum(['yes', 'no', 'wait']);

export const OperationVerdict = z.object({
  allowed: Acceptability,
  /** Why, in a few words a person reads (also when allowed). */
  reason: z.string(),
});
export type OperationVerdict = z.infer<typeof OperationVerdict>;

/** Which operations a terminal accepts right now, and why (every state read carries it). */
export const Operations = z.object({
  sendInput: OperationVerdict,
  interrupt: OperationVerdict,
  resume: OperationVerdict,
  detach: OperationVerdict,
  /** Answering the question a dialog asks (docs/questions.md): its choices are in `surface.question`. */
  answer: OperationVerdict,
});
export type Operations = z.infer<typeof Operations>;

const verdict = (allowed: OperationVerdict['allowed'], reason: string): OperationVerdict => ({
  allowed,
  reason,
});

/** Why the terminal cannot be seen or driven at all, or null when it can. */
function gone(s: TerminalState): string | null {
  const d = s.diagnostics;
  if (d.availability === 'unavailable') {
    // A fleet view says why it cannot see the pane (its host is unreachable).
    return d.error?.kind === 'host_unreachable'
      ? d.error.message
      : 'no such pane (tmux cannot find it)';
  }
  if (d.availability === 'tui_down') return 'the agent is not running in the pane';
  if (d.availability === 'error')
    return `the pane cannot be read: ${d.error?.message ?? 'probe error'}`;
  if (d.parse === 'unsupported_tool' || s.tool === 'unsupported')
    return 'no agent CLI in this pane';
  return null;
}

/**
 * The seed's operation table, decided from the public state: send a prompt (yes, no, or wait:
 * it will be possible without anyone acting), interrupt, resume, detach — each with its reason,
 * so a client never has to derive it.
 */
export function operationsFor(s: TerminalState, facts: TerminalFacts = {}): Operations {
  return {
    sendInput:
      facts.readsNoInput === undefined
        ? sendInput(s)
        : verdict('no', `the pane reads no input: ${facts.readsNoInput}`),
    interrupt: interrupt(s),
    resume:
      s.session.status === 'blocked'
        ? verdict('yes', `the session is blocked: ${s.session.stopReasonCode ?? 'unknown'}`)
        : verdict('no', 'the session is not blocked'),
    detach: verdict('yes', 'always possible'),
    answer:
      facts.readsNoInput === undefined
        ? answer(s)
        : verdict('no', `the pane reads no input: ${facts.readsNoInput}`),
  };
}

/** What the supervisor knows of a pane beyond its public state. */
export interface TerminalFacts {
  /** The pane reads no input (a recording plays in it, say): why, in a few words. */
  readsNoInput?: string;
}

/** The operations that act on a pane: each goes through {@link gate}. */
export type Operation = keyof Operations;

/**
 * THE gate: every action that types or changes a session (a prompt, the interrupt keys, a
 * resume, a detach, an answer to a dialog) is taken only when this says so, whoever asks
 * (library, CLI, HTTP, MCP, fleet). Answers null when the operation may go ahead, else the
 * verdict that refuses it (`force` overrides a refusal of a prompt or an interrupt, never a pane
 * that reads no input, never an answer).
 */
export function gate(
  s: TerminalState,
  operation: Operation,
  options: { force?: boolean } & TerminalFacts = {},
): OperationVerdict | null {
  const v = operationsFor(s, options)[operation];
  if (v.allowed === 'yes') return null;
  const forcible =
    (operation === 'sendInput' || operation === 'interrupt') &&
    !(operation === 'sendInput' && options.readsNoInput !== undefined);
  return options.force && forcible ? null : v;
}

/**
 * Whether the question on screen may be answered now. Only a dialog paneward read as a question
 * (with its choices) is answered, and not in a session the watchdog blocked: an answer lets the
 * agent go on, which is what the block stops until a resume. Which question and which choice is
 * the command's own check (docs/questions.md).
 */
function answer(s: TerminalState): OperationVerdict {
  if (s.session.status === 'blocked') {
    return verdict(
      'no',
      `the watchdog blocked the session (${s.session.stopReasonCode}); resume it first`,
    );
  }
  const why = gone(s);
  if (why !== null) return verdict('no', why);
  if (s.diagnostics.availability !== 'available') {
    return verdict('no', 'no question waits for the operator');
  }
  const q = s.surface.question;
  if (s.readiness.status === 'blocked' && q !== null) {
    return verdict('yes', `the agent asks question ${q.id} (${q.kind})`);
  }
  if (s.readiness.status === 'blocked') {
    return verdict(
      'no',
      `the dialog on screen${s.surface.blockedPrompt ? ` (${s.surface.blockedPrompt})` : ''} is not one paneward reads as a question; answer it in the pane`,
    );
  }
  return verdict('no', 'no question waits for the operator');
}

function interrupt(s: TerminalState): OperationVerdict {
  const why = gone(s);
  if (why !== null) return verdict('no', why);
  return s.turn.phase === 'active' || s.surface.businessState === 'working'
    ? verdict('yes', 'a turn is running')
    : verdict('no', 'no turn is running');
}

/**
 * Whether a prompt may be typed now: the original operation table (docs/contracts.md, operation
 * acceptability), by `diagnostics.availability` and `turn.phase`, with paneward's refusals that
 * are stricter than its rows (docs/design.md): a table "yes" never overrides them.
 */
function sendInput(s: TerminalState): OperationVerdict {
  // Stricter than the table: the watchdog blocked the session; only a resume lifts it.
  if (s.session.status === 'blocked') {
    return verdict(
      'no',
      `the watchdog blocked the session (${s.session.stopReasonCode}); resume it first`,
    );
  }
  const why = gone(s);
  switch (s.diagnostics.availability) {
    case 'unavailable':
    case 'tui_down':
    case 'error':
      return verdict('no', why ?? 'the pane cannot be read');
    case 'unknown':
      // Stricter than the table: a pane with no agent CLI paneward reads is never classified
      // by itself, so a wait would never end.
      if (why !== null) return verdict('no', why);
      return verdict('wait', 'not classifiable yet: no sample of the pane has been read');
    case 'available':
      break;
  }
  // Stricter than the table: a dialog on screen needs a person, whatever the phase.
  if (s.readiness.status === 'blocked') {
    return verdict(
      'no',
      `the agent waits for the operator${s.surface.blockedPrompt ? ` (${s.surface.blockedPrompt})` : ''}`,
    );
  }
  // A turn running (also one inferred from the screen, also one paneward typed whose end is
  // not confirmed yet): a prompt now would be typed into it.
  if (s.turn.phase === 'active') {
    const running = s.turn.current ? `turn ${s.turn.current.id}` : 'a turn';
    return verdict(
      'no',
      `the agent is working: ${running} is running; wait for it to end or interrupt it`,
    );
  }
  if (s.turn.phase === 'ready') {
    // Stricter than the table: a surface read as failed (unsupported or gone) takes nothing.
    if (s.readiness.status === 'failed') {
      return verdict('no', 'the surface is unsupported or disconnected');
    }
    // Stricter than the table: the prompt paneward typed last is still being confirmed ended
    // (its settle window); a prompt now would take its place and lose its outcome.
    const c = s.completion;
    if (c !== null && c.status !== 'completed' && c.status !== 'failed') {
      return verdict('wait', `turn ${c.turnId} has not finished`);
    }
    return verdict('yes', 'the agent waits for a prompt');
  }
  return postureAmbiguous(s);
}

/** `available` and phase `unknown`: why the posture is ambiguous (a wait, or a failed surface). */
function postureAmbiguous(s: TerminalState): OperationVerdict {
  switch (s.readiness.status) {
    case 'failed':
      // Stricter than the table: an unsupported or vanished surface does not come back by itself.
      return verdict('no', 'the surface is unsupported or disconnected');
    case 'stalled':
      return verdict(
        'wait',
        'posture ambiguous: the surface has been unreadable too long (stalled)',
      );
    default:
      break;
  }
  if (s.surface.uiContext === 'unrecognised' && s.toolVersion !== null) {
    if (isNewerThanVerifiedVersion(s.tool, s.toolVersion)) {
      // A new release may draw screens no vocabulary knows (under --verified-only none of its
      // screens are read): `paneward doctor` says what to do.
      return verdict(
        'wait',
        `the screen matches no shape paneward knows; ${s.tool} ${s.toolVersion} is newer than the verified ${verifiedVersionsOf(s.tool).join(', ')} (see paneward doctor)`,
      );
    }
  }
  if (s.surface.uiContext === 'unrecognised') {
    return verdict('wait', 'the screen matches no shape paneward knows');
  }
  const c = s.completion;
  if (c !== null && c.status !== 'completed' && c.status !== 'failed') {
    return verdict('wait', `posture ambiguous: turn ${c.turnId} has not finished`);
  }
  if (s.readiness.status === 'unknown')
    return verdict('wait', 'posture ambiguous: cannot tell yet');
  return s.surface.businessState === 'working'
    ? verdict('wait', 'posture ambiguous: the agent looks busy')
    : verdict('wait', 'posture ambiguous: the agent is not ready for a prompt yet');
}
