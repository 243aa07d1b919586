import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failureOf, type BackendFailure } from './backend.js';

/**
 * What a model can do about a refusal, after the API's own sentence: each error code the
 * operation table answers with, said as the next step to take.
 */
export function adviceFor(f: BackendFailure, where: string): string {
  const d = (f.details ?? {}) as {
    allowed?: string;
    pendingTurnId?: string;
    turnPhase?: string;
    reason?: string;
  };
  switch (f.code) {
    case 'unknown_terminal':
    case 'not_found':
      return 'call list_terminals for the ids of the terminals there are';
    case 'ambiguous':
      return 'name one of them by its terminal id (list_terminals gives them)';
    case 'unknown_turn':
      return 'that turn id is none of this terminal’s: wait on the turnId send_prompt answered, or read terminal_state (lastTurn) for its latest turn';
    case 'not_ready':
      if (d.pendingTurnId || d.turnPhase === 'active') {
        return `the terminal is busy${d.pendingTurnId ? `: ${d.pendingTurnId} is running` : ''}; wait for it with wait_for_turn, or stop it with interrupt, then send again`;
      }
      if (d.allowed === 'wait') {
        return 'it should accept a prompt soon by itself: check terminal_state in a few seconds, then send again';
      }
      return 'nothing was typed; it will not accept a prompt until that changes: read terminal_state (with its screen) to see why';
    case 'refused':
      return 'nothing was done; terminal_state says which operations it accepts now';
    case 'invalid_input':
      return 'nothing was typed; fix that argument and call again';
    case 'stopped':
      return 'the terminal went away (detached, or paneward stopped); call list_terminals';
    case 'unreachable':
      return `paneward is not reachable (${where}): is \`paneward serve\` running? nothing was done`;
    case 'connection_lost':
    case 'tmux_timeout':
      return 'it may or may not have been typed: read terminal_state before sending again';
    case 'tmux_failed':
    case 'tmux_missing':
      return 'tmux refused; nothing more was typed; read terminal_state before trying again';
    case 'host_refused':
      return "the pane's host refused the fleet server's signature: nothing was done; the fleet server and that host need the same fleet token";
    case 'unsupported':
      return "nothing was done: the pane's host runs an older paneward; upgrade it, or ask the operator to act in the pane";
    case 'unauthorized':
    case 'http_401':
      return 'paneward wants a token: give `paneward mcp` --token-file or PANEWARD_TOKEN';
    default:
      return '';
  }
}

export function refusal(error: unknown, where: string): CallToolResult {
  const f = failureOf(error);
  const advice = adviceFor(f, where);
  return {
    content: [{ type: 'text', text: `${f.code}: ${f.message}${advice ? ` — ${advice}` : ''}` }],
    isError: true,
  };
}

export function answer<T extends Record<string, unknown>>(text: string, data: T): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

/** The screen without the blank rows below what was drawn. */
export const trimScreen = (text: string): string => text.replace(/\s+$/, '');

/** Where an MCP call can report progress, when its client asked for it. */
export interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
}

/** Reports progress every few seconds while `work` runs (clients reset their timeout on it). */
export async function withProgress<T>(
  extra: CallExtra,
  what: string,
  work: Promise<T>,
  everyMs: number,
): Promise<T> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return work;
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: seconds, message: `${what}: ${seconds} s` },
      })
      .catch(() => {});
  }, everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
