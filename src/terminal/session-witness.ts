import type { Observable } from 'rxjs';
import { hookEndingsOf } from '../hooks/events.js';
import { sessionRecordReader } from '../profiles/session-records.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import {
  DEFAULT_WITNESS_WINDOW_SECONDS,
  type CompletionAuthority,
  type WitnessConfig,
} from './witness.js';
import { ClaimRegistry, SessionObserver, type ObserverReport } from '../sessions/observer.js';

/**
 * The completion authority a terminal runs under (docs/witness.md): the one asked for (the
 * attach request's, else the supervisor's), `both` by default where the tool has a
 * session-record reader or hooks (docs/hooks.md), or completion observers are given, and always
 * `surface` where it has none of these.
 */
export function witnessConfigFor(
  tool: string,
  asked: CompletionAuthority | undefined,
  observers = false,
): WitnessConfig | undefined {
  const reader = sessionRecordReader(tool);
  const hookEndings = hookEndingsOf(tool);
  if (!reader && !hookEndings && !observers) return undefined;
  const authority = asked ?? 'both';
  if (authority === 'surface') return undefined;
  return {
    authority,
    windowSeconds: DEFAULT_WITNESS_WINDOW_SECONDS,
    // A tool with hooks but no record reader: the record can tell nothing.
    ...(reader ? (reader.endings ? { endings: reader.endings } : {}) : { endings: [] }),
    ...(hookEndings ? { hookEndings } : {}),
  };
}

export interface TerminalWitnessOptions {
  terminalId: string;
  tool: string;
  processNames: readonly string[];
  claims: ClaimRegistry;
  /** The pane's own process (from the latest probe), or null. */
  panePid: () => number | null;
  /** The terminal's public state: a new turn is when the record is looked for again. */
  state$: Observable<TerminalState>;
  report: (report: ObserverReport) => void;
}

/**
 * The session-record observer of one live terminal, looking for the record whenever a turn
 * starts (docs/witness.md). Returns what stops it.
 */
export function startTerminalWitness(o: TerminalWitnessOptions): () => void {
  const reader = sessionRecordReader(o.tool);
  if (!reader) return () => undefined;
  const observer = new SessionObserver({
    owner: o.terminalId,
    reader,
    processNames: o.processNames,
    claims: o.claims,
    panePid: () => Promise.resolve(o.panePid()),
    report: o.report,
    // Each turn's reply text for its payload (held in memory by the supervisor only).
    replies: true,
  });
  let turn: string | null = null;
  const sub = o.state$.subscribe((s) => {
    const id = s.turn.current?.id ?? null;
    if (id !== null && id !== turn) void observer.locate();
    turn = id;
  });
  return () => {
    sub.unsubscribe();
    observer.stop();
  };
}

export { ClaimRegistry };
