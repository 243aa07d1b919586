import type { KernelSnapshot } from '../kernel/kernel.js';
import { toolVersionVerified } from '../profiles/index.js';
import type { ParseOutcome, ProbeOutcome } from '../schemas/probe.js';
import type { RestoreFacts } from '../schemas/record.js';
import { NO_SIGNALS, type ProfileResult, type ReadQuestion } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { TurnSnapshot } from './turn-driver.js';

/** What a terminal's public state is made of, as its pipeline knows it at one instant. */
export interface StateFacts {
  terminalId: string;
  target: string | null;
  tool: string;
  toolVersion: string | null;
  diagnostics: TerminalState['diagnostics']['availability'];
  probe: ProbeOutcome | null;
  parse: ParseOutcome | null;
  probeError: { kind: string; message: string } | null;
  /** The latest parsed screen (shown only while diagnostics are available). */
  parsed: ProfileResult | null;
  kernel: KernelSnapshot;
  /** The turn the kernel's completion actor belongs to. */
  completionTurnId: string | null;
  turn: TurnSnapshot;
  /** The completion witness, when the terminal has a session record to read. */
  witness?: NonNullable<TerminalState['witness']>;
  watchdog: {
    state: TerminalState['watchdog']['state'];
    sessionStartedAt: number | null;
    budgetSeconds: number;
  };
}

/** When things last changed: the clock-derived part of the public state. */
export interface StateTimes {
  now: number;
  readinessSince: number | null;
  phaseSince: number | null;
  /** When the surface (availability, business state, input mode, projection) last changed. */
  surfaceSince: number | null;
  /** When the public state last changed. */
  stateSince: number | null;
  stabilitySeconds: number;
}

/**
 * The public state from the pipeline's facts. The clock-derived fields (`readiness.since`,
 * `turn.since`, `stability`) are filled by {@link stampTimes}, which a publish applies again
 * once it knows what changed: the state itself is composed once per publish.
 */
export function composeState(f: StateFacts, times: StateTimes): TerminalState {
  const k = f.kernel;
  const available = f.diagnostics === 'available';
  const surface = f.parsed && available ? f.parsed : null;
  const sig = surface?.signals ?? NO_SIGNALS;
  const watchdog = f.watchdog.state;
  const state: TerminalState = {
    terminalId: f.terminalId,
    target: f.target,
    tool: f.tool,
    toolVersion: f.toolVersion,
    toolVersionVerified: toolVersionVerified(f.tool, f.toolVersion),
    t: times.now,
    diagnostics: {
      availability: f.diagnostics,
      transport: f.probe?.transport ?? null,
      process: f.probe?.process ?? null,
      parse: f.parse,
      error: f.probeError,
    },
    surface: {
      availability: surface?.surface.availability ?? 'unknown',
      businessState: surface?.surface.businessState ?? 'unknown',
      inputMode: surface?.surface.inputMode ?? 'unknown',
      uiContext: surface?.surface.uiContext ?? 'unknown',
      acceptingInput: sig.acceptingInput,
      editingInput: sig.editingInput,
      readyPosture: sig.readyPosture,
      blockedPrompt: sig.blockedPrompt,
      question: publicQuestion(sig.blockedPrompt === null ? null : (surface?.question ?? null)),
      activeReasons: sig.activeReasons,
    },
    turn: { phase: f.turn.phase, since: null, current: f.turn.current },
    lastTurn: f.turn.lastTurn,
    ...(f.witness ? { witness: f.witness } : {}),
    readiness: {
      status: k.readiness as TerminalState['readiness']['status'],
      since: null,
    },
    completion:
      // Stryker disable next-line LogicalOperator: the kernel has a completion only after submit(), which sets completionTurnId right after handing it the turn, and nothing composes in between
      k.completion && f.completionTurnId
        ? {
            turnId: f.completionTurnId,
            status: k.completion.status as NonNullable<TerminalState['completion']>['status'],
            sawWorking: k.completion.evidence.sawWorking,
            sawProjectionChange: k.completion.evidence.sawProjectionChange,
            ...(k.completion.payload === null ? {} : { payload: k.completion.payload }),
          }
        : null,
    // Signals of a surface that is not available are NO_SIGNALS: `unknown`.
    chatContext:
      sig.chatContext === 'degraded'
        ? { state: 'degraded', degradedErrorType: sig.degradedErrorType ?? 'unknown' }
        : { state: sig.chatContext },
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a placeholder; stampTimes overwrites it on every publish
    stability: { stable: false, stableForSeconds: 0 },
    watchdog: {
      state: watchdog,
      sessionStartedAt: f.watchdog.sessionStartedAt,
      budgetSeconds: f.watchdog.budgetSeconds,
    },
    session:
      watchdog === 'fired'
        ? { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' }
        : watchdog === 'finished'
          ? { status: 'finished', stopReasonCode: null }
          : { status: 'running', stopReasonCode: null },
  };
  stampTimes(state, times);
  return state;
}

/** A read question without its keys: what a client sees and may answer. */
function publicQuestion(q: ReadQuestion | null): TerminalState['surface']['question'] {
  if (q === null) return null;
  return {
    id: q.id,
    kind: q.kind,
    subject: q.subject,
    choices: q.choices.map((c) => ({ id: c.id, label: c.label })),
  };
}

/** How long the surface and the public state have both been unchanged; null: no surface yet. */
function stableSince(times: StateTimes): number | null {
  return times.surfaceSince === null ? null : Math.max(times.surfaceSince, times.stateSince ?? 0);
}

/** Writes the clock-derived fields of `state` (in place) from `times`. */
export function stampTimes(state: TerminalState, times: StateTimes): void {
  const since = stableSince(times);
  const stableFor = since === null ? 0 : Math.max(0, times.now - since);
  state.readiness.since = times.readinessSince;
  state.turn.since = times.phaseSince;
  state.stability = {
    stable: since !== null && stableFor >= times.stabilitySeconds,
    stableForSeconds: stableFor,
  };
}

/** The `stability.stable` a state composed now would have. */
export function stableAt(times: StateTimes): boolean {
  const since = stableSince(times);
  return since !== null && Math.max(0, times.now - since) >= times.stabilitySeconds;
}

/** The same times but for the clock (`now`). */
export function sameTimes(a: StateTimes, b: StateTimes): boolean {
  return (
    a.readinessSince === b.readinessSince &&
    a.phaseSince === b.phaseSince &&
    a.surfaceSince === b.surfaceSince &&
    a.stateSince === b.stateSince &&
    a.stabilitySeconds === b.stabilitySeconds
  );
}

const plain = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === Array.prototype;
};

/**
 * Equal values down to `depth` levels of plain objects and arrays; below that, the same object.
 * The facts hold the charts' contexts and the profile's reading, which are never changed in
 * place (a change is a new object): the same object is the same value.
 */
function sameUpTo(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth === 0 || !plain(a) || !plain(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  let n = 0;
  for (const k in a) {
    if (!(k in b) || !sameUpTo(a[k], b[k], depth - 1)) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/**
 * The same facts: {@link composeState} makes the same state of them (and the same times). Deep
 * enough for what is rebuilt on every read (the kernel's and the turn charts' snapshots, the
 * probe's outcome); the charts' contexts below are compared as objects.
 */
export function sameFacts(a: StateFacts, b: StateFacts): boolean {
  return sameUpTo(a, b, 3);
}

/**
 * Settles the clock-derived fields of `next` (composed now) against `prev`, the state last
 * published: readiness and the turn phase are `since` now when they changed, and a change of
 * the public state (the stability fields apart) starts its stability over. Returns the changed
 * fields and whether the state changed.
 */
export function settleTimes(
  prev: TerminalState,
  next: TerminalState,
  times: StateTimes,
): { changed: Record<string, unknown>; restarted: boolean } {
  if (next.readiness.status !== prev.readiness.status || times.readinessSince === null) {
    times.readinessSince = times.now;
  }
  if (next.turn.phase !== prev.turn.phase || times.phaseSince === null) {
    times.phaseSince = times.now;
  }
  stampTimes(next, times);
  // stableForSeconds is how long the public state has been unchanged: a change (a fresh
  // success too) is published with 0, not stable. The stability fields themselves do not count.
  const changed = changedFields(prev, next);
  const restarted = Object.keys(changed).some((k) => !k.startsWith('stability.'));
  if (!restarted) return { changed, restarted };
  times.stateSince = times.now;
  stampTimes(next, times);
  return { changed: changedFields(prev, next), restarted };
}

/** The public state of a terminal whose runtime has not published yet. */
export function initialState(o: {
  /** Observation time of the attach. */
  t: number;
  terminalId: string;
  target: string | null;
  tool: string;
  toolVersion: string | null;
  budgetSeconds: number;
  /** What the journal restores (a re-adopted terminal): its last turn and a turn under way. */
  restore?: RestoreFacts | null;
}): TerminalState {
  const last = o.restore?.lastTurn;
  const open = o.restore?.openTurn?.hadEvidence ? o.restore.openTurn.turn : null;
  return {
    terminalId: o.terminalId,
    target: o.target,
    tool: o.tool,
    toolVersion: o.toolVersion,
    toolVersionVerified: toolVersionVerified(o.tool, o.toolVersion),
    t: o.t,
    diagnostics: {
      availability: 'unknown',
      transport: null,
      process: null,
      parse: null,
      error: null,
    },
    surface: {
      availability: 'unknown',
      businessState: 'unknown',
      inputMode: 'unknown',
      uiContext: 'unknown',
      acceptingInput: 'unknown',
      editingInput: 'unknown',
      readyPosture: 'unknown',
      blockedPrompt: null,
      question: null,
      activeReasons: [],
    },
    turn: open
      ? { phase: 'active', since: o.t, current: structuredClone(open) }
      : { phase: 'unknown', since: null, current: null },
    lastTurn: last
      ? { result: last.result, source: last.source, turnId: last.turnId, at: last.at }
      : { result: 'none', source: 'none', turnId: null, at: null },
    readiness: { status: 'waiting', since: null },
    completion: null,
    chatContext: { state: 'unknown' },
    stability: { stable: false, stableForSeconds: 0 },
    watchdog: { state: 'disabled', sessionStartedAt: null, budgetSeconds: o.budgetSeconds },
    session: { status: 'running', stopReasonCode: null },
  };
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Two leaves differ: as their JSON differs (the identical ones, most of them, are not encoded). */
const leafDiffers = (x: unknown, y: unknown): boolean =>
  x !== y && JSON.stringify(x) !== JSON.stringify(y);

/**
 * Fields that never count as a change: they move with the clock alone (`t`,
 * `stability.stableForSeconds`). Told by the key and the path above it, so that no path is
 * made for a field that is the same.
 */
const isClockField = (prefix: string, k: string): boolean =>
  prefix === '' ? k === 't' : k === 'stableForSeconds' && prefix === 'stability';

function walkChanges(
  x: Record<string, unknown>,
  y: Record<string, unknown>,
  prefix: string,
  out: Record<string, unknown>,
): void {
  // The keys of `x` in order, then those only `y` has: the order the changes are listed in.
  for (const k in x) {
    const a = x[k];
    const b = y[k];
    // Most leaves are the same value: no path is made for them.
    if (a !== b) compareAt(a, b, prefix, k, out);
  }
  for (const k in y) if (!(k in x)) compareAt(undefined, y[k], prefix, k, out);
}

function compareAt(
  a: unknown,
  b: unknown,
  prefix: string,
  k: string,
  out: Record<string, unknown>,
): void {
  if (a === b || isClockField(prefix, k)) return;
  const path = prefix ? `${prefix}.${k}` : k;
  if (isPlain(a) && isPlain(b)) walkChanges(a, b, path, out);
  else if (leafDiffers(a, b)) out[path] = b === undefined ? null : b;
}

/** The public-state leaves that differ, as dotted paths with their new values. */
export function changedFields(a: TerminalState, b: TerminalState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  walkChanges(
    a as unknown as Record<string, unknown>,
    b as unknown as Record<string, unknown>,
    '',
    out,
  );
  return out;
}

/** Equal but for the clock-derived fields (`t`, `stability.stableForSeconds`). */
export function sameState(a: TerminalState, b: TerminalState): boolean {
  return Object.keys(changedFields(a, b)).length === 0;
}
