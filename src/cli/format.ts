import type { TerminalState } from '../schemas/terminal-state.js';
import { operationsFor } from '../terminal/operations.js';
import { toolLabel } from './labels.js';

/**
 * Observation time as people read it: seconds into a replay, the time of day (UTC) live, where
 * observation time is epoch seconds.
 */
function clock(t: number): string {
  return t >= 1e9 ? new Date(t * 1000).toISOString().slice(11, 23) : `${t.toFixed(3).padStart(9)}s`;
}

/** One short line per public-state change, for people watching a terminal. */
export function briefLine(s: TerminalState): string {
  return `${clock(s.t)} ${briefBody(s)}`;
}

/** The brief line without its time. */
function briefBody(s: TerminalState): string {
  const turn = s.turn.current ? ` ${s.turn.current.id}(${s.turn.current.source})` : '';
  const completion = s.completion
    ? ` completion=${s.completion.turnId}:${s.completion.status}`
    : '';
  const last =
    s.lastTurn.result === 'none'
      ? ''
      : ` last=${s.lastTurn.result}@${s.lastTurn.turnId ?? '-'}` +
        (s.lastTurn.witness ? `(${s.lastTurn.witness})` : '');
  const blocked = s.surface.blockedPrompt ? ` blocked=${s.surface.blockedPrompt}` : '';
  const context =
    s.chatContext.state === 'degraded'
      ? ` context=degraded:${s.chatContext.degradedErrorType ?? 'unknown'}`
      : '';
  const send = operationsFor(s).sendInput;
  const why = send.allowed === 'no' ? ` (${send.reason})` : '';
  const where = s.target === null ? '' : ` ${s.target} ${toolLabel(s.tool)}`;
  return (
    `${s.terminalId}${where} ` +
    `diag=${s.diagnostics.availability} readiness=${s.readiness.status}${why} ` +
    `phase=${s.turn.phase}${turn}${completion}${last}${blocked}${context} ` +
    `surface=${s.surface.businessState}/${s.surface.inputMode}`
  );
}

/**
 * A printer of brief lines that skips a line saying the same as the previous one for that
 * terminal (the full state changed in a field the brief line does not show).
 */
export function briefPrinter(out: (line: string) => void): (s: TerminalState) => void {
  const last = new Map<string, string>();
  return (s) => {
    const body = briefBody(s);
    if (last.get(s.terminalId) === body) return;
    last.set(s.terminalId, body);
    out(`${clock(s.t)} ${body}`);
  };
}
