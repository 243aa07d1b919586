import type { TerminalState } from '../schemas/terminal-state.js';
import type { Operations } from '../terminal/operations.js';
import { toolLabel } from './labels.js';

type View = TerminalState & { operations: Operations };

/** "14 min", "3 s", "2 h": how long something has been so. */
export function age(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

const COLOR: Record<string, string> = {
  ready: '32',
  waiting: '36',
  blocked: '33',
  failed: '31',
  stalled: '31',
  unknown: '90',
  gone: '90',
  success: '32',
  interrupted: '33',
  known_failure: '31',
};

/** The tool, with what a person should know of it: an unverified release, a degraded context. */
function toolCell(v: View): string {
  const marks = [
    ...(v.toolVersionVerified === false ? ['unverified'] : []),
    ...(v.chatContext.state === 'degraded' ? ['context degraded'] : []),
  ];
  return marks.length === 0 ? toolLabel(v.tool) : `${toolLabel(v.tool)} (${marks.join(', ')})`;
}

/** One table of terminals: terminal, target, tool, readiness, phase, last result, for how long. */
export function terminalTable(
  views: readonly View[],
  nowSeconds: number,
  color: boolean,
): string[] {
  const paint = (text: string, key: string) =>
    color && COLOR[key] ? `\u001b[${COLOR[key]}m${text}\u001b[0m` : text;
  const rows = views.map((v) => [
    v.terminalId,
    v.target ?? '-',
    toolCell(v),
    // A pane tmux cannot find is gone: its own word, not a failure someone should act on.
    v.diagnostics.availability === 'unavailable' ? 'gone' : v.readiness.status,
    v.turn.phase,
    v.lastTurn.result === 'none' ? '-' : `${v.lastTurn.result}@${v.lastTurn.turnId}`,
    v.readiness.since === null ? '-' : age(nowSeconds - v.readiness.since),
    v.operations.sendInput.allowed === 'yes' ? '' : v.operations.sendInput.reason,
  ]);
  const head = [...LS_COLUMNS];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[], paintIt: boolean) =>
    cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c : c.padEnd(widths[i]!);
        if (!paintIt) return padded;
        if (i === 3) return paint(padded, c);
        if (i === 5) return paint(padded, c.split('@')[0]!);
        return padded;
      })
      .join('  ')
      .trimEnd();
  return [line(head, false), ...rows.map((r) => line(r, true))];
}

/** The columns of `paneward ls` (docs/glossary.md explains each). */
export const LS_COLUMNS = [
  'TERMINAL',
  'TARGET',
  'TOOL',
  'READINESS',
  'PHASE',
  'LAST RESULT',
  'FOR',
  'WHY NOT READY',
] as const;

/** Plain columns, padded to the widest cell; the last column is not padded. */
export function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [head, ...rows]
    .map((cells) =>
      cells
        .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
