import type { TerminalView, TurnResponse } from '../schemas/operations/index.js';
import { toolVersionLabel } from './labels.js';
import type { ClientIo } from './client-io.js';

/** What `paneward state` prints of one terminal. */
/** The chat context as `state` and `ls` print it: `degraded (<reason>)` when degraded. */
export function contextWords(c: TerminalView['chatContext']): string {
  return c.state === 'degraded' ? `degraded (${c.degradedErrorType ?? 'unknown'})` : c.state;
}

export function describeState(v: TerminalView): string[] {
  const op = (name: string, o: { allowed: string; reason: string }) =>
    `  ${name}: ${o.allowed} (${o.reason})`;
  return [
    `${v.terminalId} ${v.target ?? ''} ${toolVersionLabel(v)}`,
    `  diagnostics: ${v.diagnostics.availability}  readiness: ${v.readiness.status}  phase: ${v.turn.phase}${v.turn.current ? ` ${v.turn.current.id} (${v.turn.current.source})` : ''}`,
    `  last turn: ${v.lastTurn.result}${v.lastTurn.turnId ? ` ${v.lastTurn.turnId} (${v.lastTurn.source}${v.lastTurn.witness ? `, witness ${v.lastTurn.witness}` : ''})` : ''}  session: ${v.session.status}`,
    `  chat context: ${contextWords(v.chatContext)}`,
    ...(v.witness
      ? [
          `  session record: ${v.witness.record} (completion authority ${v.witness.authority})${v.witness.why ? `: ${v.witness.why}` : ''}`,
        ]
      : []),
    op('send input', v.operations.sendInput),
    op('interrupt', v.operations.interrupt),
    op('resume', v.operations.resume),
  ];
}

/**
 * The turn's reply text on stdout, as it is (`send --wait --print`); where it came from, or why
 * there is none, on stderr.
 */
export function printReply(io: ClientIo, r: TurnResponse): void {
  const reply = r.payload?.reply ?? null;
  if (r.payload === undefined) {
    io.err('paneward: this server answers no turn payloads: no reply to print');
  } else if (reply === null || reply.source === null) {
    io.err(
      `paneward: ${r.turnId}: no reply text was found (not in a session record nor on the screen)`,
    );
  } else {
    io.out(reply.text);
    const cut = reply.truncated ? ', not whole (cut at 64 KiB, or its start had scrolled out)' : '';
    io.err(
      `paneward: ${r.turnId}: reply from the ${reply.source === 'record' ? 'session record' : 'screen'}${cut}`,
    );
  }
}
