import type { JournalRecord } from '../schemas/record.js';
import { NOTIFY_FORMAT, type NotifyEvent, type NotifyKind } from '../schemas/notify.js';
import type { TerminalState } from '../schemas/terminal-state.js';

/** An event before debounce: what happened, to which terminal, and what it carries. */
export interface Happening {
  kind: NotifyKind;
  terminalId: string;
  host?: string;
  turnId?: string;
  outcome?: NotifyEvent['outcome'];
  /** Set for `question`: the blocked prompt as the record changed it, when it did. */
  prompt?: string | null;
  /** Set for what a fleet server tells of a host (`gone` when it stopped answering, `back`). */
  reason?: string;
}

/**
 * The value a state record's `changed` gives a public-state path: the path itself, or the
 * part of an ancestor object that changed as a whole (`completion` from null to an object).
 * Undefined when the record did not change it.
 */
export function changedValue(changed: Record<string, unknown>, path: string): unknown {
  if (path in changed) return changed[path];
  const parts = path.split('.');
  for (let n = parts.length - 1; n > 0; n--) {
    const head = parts.slice(0, n).join('.');
    if (!(head in changed)) continue;
    let v: unknown = changed[head];
    for (const p of parts.slice(n)) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string, unknown>)[p];
    }
    return v;
  }
  return undefined;
}

/**
 * What a record tells a person about (docs/notify.md), read from the record alone so that the
 * same rules hold on a single server and on a fleet server (whose records carry `host`):
 *
 * - `question`: readiness became `blocked` (the agent waits for the operator);
 * - `turn_ended`: a `turn.ended` record with an outcome (`none`, a turn another replaced, is not);
 * - `stalled`: readiness or the turn's completion became `stalled`;
 * - `exited`: diagnostics became `tui_down` (the agent CLI is no longer running in the pane);
 * - `gone`: diagnostics became `unavailable` (the pane is gone), or the terminal was detached.
 */
export function happeningsOf(record: JournalRecord): Happening[] {
  const terminalId = record.terminalId;
  if (terminalId === null) return [];
  const hostOf = (record as { host?: unknown }).host;
  const base = {
    terminalId,
    ...(typeof hostOf === 'string' ? { host: hostOf } : {}),
  };
  switch (record.kind) {
    case 'turn.ended':
      if (record.outcome === 'none') return [];
      return [{ ...base, kind: 'turn_ended', turnId: record.turnId, outcome: record.outcome }];
    case 'terminal.detached':
      return [{ ...base, kind: 'gone' }];
    case 'state': {
      const out: Happening[] = [];
      const c = record.changed;
      const readiness = changedValue(c, 'readiness.status');
      if (readiness === 'blocked') {
        const prompt = changedValue(c, 'surface.blockedPrompt');
        out.push({
          ...base,
          kind: 'question',
          ...(typeof prompt === 'string' || prompt === null ? { prompt } : {}),
        });
      }
      if (readiness === 'stalled' || changedValue(c, 'completion.status') === 'stalled') {
        out.push({ ...base, kind: 'stalled' });
      }
      const availability = changedValue(c, 'diagnostics.availability');
      if (availability === 'tui_down') out.push({ ...base, kind: 'exited' });
      if (availability === 'unavailable') out.push({ ...base, kind: 'gone' });
      return out;
    }
    default:
      return [];
  }
}

/** What a notification says of a terminal whose state was never read (a fleet's first record). */
const UNKNOWN_STATE: NotifyEvent['state'] = {
  readiness: 'unknown',
  phase: 'unknown',
  availability: 'unknown',
  lastTurn: { result: 'none', turnId: null },
};

/** The part of a terminal's state a notification carries. */
export function stateOf(s: TerminalState): NotifyEvent['state'] {
  return {
    readiness: s.readiness.status,
    phase: s.turn.phase,
    availability: s.diagnostics.availability,
    lastTurn: { result: s.lastTurn.result, turnId: s.lastTurn.turnId },
  };
}

/**
 * The notification of a happening, given the terminal's state (its latest known; null when it
 * was never read: then its tool is `unknown` and its state all `unknown`).
 */
export function eventOf(
  h: Happening,
  state: TerminalState | null,
  coalesced: number,
  now = new Date(),
): NotifyEvent {
  const turnId = h.turnId ?? state?.turn.current?.id;
  return {
    version: NOTIFY_FORMAT,
    kind: h.kind,
    at: now.toISOString(),
    terminalId: h.terminalId,
    ...(h.host !== undefined ? { host: h.host } : {}),
    tool: state?.tool ?? 'unknown',
    ...(turnId !== undefined ? { turnId } : {}),
    ...(h.outcome !== undefined ? { outcome: h.outcome } : {}),
    ...(h.kind === 'question'
      ? { prompt: h.prompt !== undefined ? h.prompt : (state?.surface.blockedPrompt ?? null) }
      : {}),
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
    coalesced,
    state: state ? stateOf(state) : UNKNOWN_STATE,
  };
}
