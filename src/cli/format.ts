import type { TerminalState } from '../schemas/terminal-state.js';

/** One short line per public-state change, for people watching a terminal. */
export function briefLine(s: TerminalState): string {
  const turn = s.turn.current ? ` ${s.turn.current.id}(${s.turn.current.source})` : '';
  const completion = s.completion
    ? ` completion=${s.completion.turnId}:${s.completion.status}`
    : '';
  const last =
    s.lastTurn.result === 'none' ? '' : ` last=${s.lastTurn.result}@${s.lastTurn.turnId ?? '-'}`;
  const blocked = s.surface.blockedPrompt ? ` blocked=${s.surface.blockedPrompt}` : '';
  return (
    `${s.t.toFixed(3).padStart(9)}s ${s.terminalId} ` +
    `diag=${s.diagnostics.availability} readiness=${s.readiness.status} ` +
    `phase=${s.turn.phase}${turn}${completion}${last}${blocked} ` +
    `surface=${s.surface.businessState}/${s.surface.inputMode}`
  );
}
