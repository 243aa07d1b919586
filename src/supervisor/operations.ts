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
 * resume, a detach) is taken only when this says so, whoever asks (library, CLI, HTTP, fleet).
 * Answers null when the operation may go ahead, else the verdict that refuses it (`force`
 * overrides a refusal of a prompt or an interrupt, never a pane that reads no input).
 */
export function gate(
  s: TerminalState,
  operation: Operation,
  options: { force?: boolean } & TerminalFacts = {},
): OperationVerdict | null {
  if (operation === 'sendInput' && options.readsNoInput !== undefined) {
    return verdict('no', `the pane reads no input: ${options.readsNoInput}`);
  }
  const v = operationsFor(s)[operation];
  if (v.allowed === 'yes') return null;
  const forcible = operation === 'sendInput' || operation === 'interrupt';
  return options.force && forcible ? null : v;
}

function interrupt(s: TerminalState): OperationVerdict {
  const why = gone(s);
  if (why !== null) return verdict('no', why);
  return s.turn.phase === 'active' || s.surface.businessState === 'working'
    ? verdict('yes', 'a turn is running')
    : verdict('no', 'no turn is running');
}

function sendInput(s: TerminalState): OperationVerdict {
  if (s.session.status === 'blocked') {
    return verdict(
      'no',
      `the watchdog blocked the session (${s.session.stopReasonCode}); resume it first`,
    );
  }
  const why = gone(s);
  if (why !== null) return verdict('no', why);
  // A prompt on screen needs a person even while the turn it interrupted is pending.
  if (s.readiness.status === 'blocked') {
    return verdict(
      'no',
      `the agent waits for the operator${s.surface.blockedPrompt ? ` (${s.surface.blockedPrompt})` : ''}`,
    );
  }
  const c = s.completion;
  if (c !== null && c.status !== 'completed' && c.status !== 'failed') {
    return verdict('wait', `turn ${c.turnId} has not finished`);
  }
  // A turn running (also one inferred from the screen): a prompt now would be typed into it.
  if (s.turn.phase === 'active') {
    const running = s.turn.current ? `turn ${s.turn.current.id}` : 'a turn';
    return verdict('no', `${running} is running; wait for it to end or interrupt it`);
  }
  switch (s.readiness.status) {
    case 'ready':
      return verdict('yes', 'the agent waits for a prompt');
    case 'failed':
      return verdict('no', 'the surface is unsupported or disconnected');
    case 'stalled':
      return verdict('no', 'the surface has been unreadable too long (stalled)');
    case 'unknown':
      if (s.surface.uiContext === 'unrecognised' && s.toolVersion !== null) {
        if (isNewerThanVerifiedVersion(s.tool, s.toolVersion)) {
          // A new release may draw screens no vocabulary knows (under --verified-only none of
          // its screens are read): `paneward doctor` says what to do.
          return verdict(
            'wait',
            `the screen matches no shape paneward knows; ${s.tool} ${s.toolVersion} is newer than the verified ${verifiedVersionsOf(s.tool).join(', ')} (see paneward doctor)`,
          );
        }
      }
      if (s.surface.uiContext === 'unrecognised') {
        return verdict('wait', 'the screen matches no shape paneward knows');
      }
      return verdict('wait', 'cannot tell yet');
    case 'waiting':
      return s.surface.businessState === 'working'
        ? verdict('wait', 'the agent is working')
        : verdict('wait', 'the agent is not ready for a prompt yet');
  }
}
