import { assign, emit, enqueueActions, raise, setup } from 'xstate';
import type { FrameSignals, OutcomeEvent, TurnPhaseState } from './turnPhase.types.js';

/**
 * Who decides a turn's outcome (docs/witness.md): the screen alone (`surface`), the CLI's
 * session record (`markers`: the screen still decides readiness and blocked prompts), or the two
 * together (`both`: an outcome needs them to agree; when they disagree for longer than the
 * window, the record wins).
 */
export type CompletionAuthority = 'surface' | 'markers' | 'both';

/**
 * Which witness decided an outcome: the screen, the session record, a hook the CLI ran on its
 * own event (docs/hooks.md), a completion observer of the user's (docs/witness.md), or the
 * screen and one of the others agreeing (`both`).
 */
export type OutcomeWitness = 'surface' | 'record' | 'hook' | 'observer' | 'both';

/** The witnesses beside the screen: the CLI's session record, its hooks, completion observers. */
export type MarkerSource = 'record' | 'hook' | 'observer';

/** How a turn ended, as a witness beside the screen tells it. */
export type MarkerEnding =
  { reason: 'success' } | { reason: 'interrupted' } | { reason: 'known_failure'; kind: string };

/**
 * Where a marker witness said a turn ended: the record's place, the hook's event name, or the
 * completion observer's name.
 */
export type MarkerEvidence =
  { file: string; offset: number; event: string } | { hook: string } | { observer: string };

/** How a terminal's completion witness is set up. */
export interface WitnessConfig {
  authority: CompletionAuthority;
  /** How long the screen and the record may disagree before the record wins, seconds. */
  windowSeconds: number;
  /**
   * The endings the record can tell (all three when absent). An ending it cannot tell is the
   * screen's alone: the record's silence about it is no disagreement, and nothing waits for it.
   */
  endings?: readonly MarkerEnding['reason'][];
  /**
   * The endings the CLI's hooks can tell (none when absent: the tool has no hooks). The same
   * rule: an ending the hooks cannot tell is left to the screen and the record.
   */
  hookEndings?: readonly MarkerEnding['reason'][];
}

export const DEFAULT_WITNESS_WINDOW_SECONDS = 3;

/**
 * A record turn started this long (seconds) before the pane's turn was armed still counts as
 * that turn's: the CLI writes the prompt as it takes it, a poll before paneward arms the turn.
 */
export const RECORD_TURN_SLACK_SECONDS = 2;

/** Whether a witness beside the screen can tell this ending. */
export function markerTells(
  config: WitnessConfig,
  by: MarkerSource,
  reason: MarkerEnding['reason'],
): boolean {
  if (by === 'hook') return config.hookEndings?.includes(reason) ?? false;
  // An observer's turn is never open: it is a witness only once it ended the turn, so it is
  // never waited for, and what it said is what it can tell.
  if (by === 'observer') return true;
  return config.endings === undefined || config.endings.includes(reason);
}

/** Whether a witness's record can tell this ending. */
export function recordTells(config: WitnessConfig, reason: MarkerEnding['reason']): boolean {
  return markerTells(config, 'record', reason);
}

/** The latest turn as one witness beside the screen (the session record, or hooks) tells it. */
export interface RecordTurn {
  /** Which witness tells it. */
  by: MarkerSource;
  /** When it started, observation seconds (the record's own time, or when it was read). */
  startedAt: number;
  ending: MarkerEnding | null;
  /**
   * Evidence of the ending: the record's file, offset and event name, or the hook's event name
   * (never any text).
   */
  endedBy: MarkerEvidence | null;
  /** When the ending was written, observation seconds (record endings only). */
  endedAt?: number;
}

/** One piece of a session record, as its reader tells it (the shape of `RecordEvent`). */
export type RecordPiece =
  | {
      type: 'turn_started';
      event: string;
      position: { file: string; offset: number };
      atMs?: number;
    }
  | {
      type: 'turn_ended';
      ending: MarkerEnding;
      event: string;
      position: { file: string; offset: number };
      atMs?: number;
    };

/** One hook event about turns (the shape of `HookTurnEvent`). */
export type HookPiece =
  | { type: 'turn_started'; event: string }
  | { type: 'turn_ended'; event: string; ending: MarkerEnding };

/**
 * What a completion observer told (docs/witness.md): the turn it ended (by id: an observer
 * watches one turn at a time), its own name, and the ending. Never any text.
 */
export interface ObserverEnding {
  turnId: string;
  observer: string;
  ending: MarkerEnding;
}

/** Folds one record event into the record's latest turn. */
export function foldRecordEvent(
  turn: RecordTurn | null,
  event: RecordPiece,
  readAt: number,
): RecordTurn {
  const at = event.atMs !== undefined ? event.atMs / 1000 : readAt;
  if (event.type === 'turn_started') {
    // A side record's ending written at or after this start, but read before it (Cline writes
    // the prompt into its messages only as the run ends, and its log says `aborted` at once):
    // it ends this turn.
    const ended = turn?.endedBy;
    if (
      turn?.ending &&
      ended &&
      'file' in ended &&
      ended.file !== event.position.file &&
      event.atMs !== undefined &&
      turn.endedAt !== undefined &&
      at <= turn.endedAt
    ) {
      return { ...turn, startedAt: at };
    }
    return { by: 'record', startedAt: at, ending: null, endedBy: null };
  }
  // An ending written before the latest turn started is an earlier turn's (a side record read
  // from its start after the record: Cline's log).
  if (turn && event.atMs !== undefined && at < turn.startedAt) return turn;
  return {
    by: 'record',
    startedAt: turn && turn.ending === null ? turn.startedAt : at,
    ending: event.ending,
    endedBy: { file: event.position.file, offset: event.position.offset, event: event.event },
    endedAt: at,
  };
}

/** Folds one hook event into the hooks' latest turn (`at`: when it arrived, seconds). */
export function foldHookEvent(turn: RecordTurn | null, event: HookPiece, at: number): RecordTurn {
  if (event.type === 'turn_started')
    return { by: 'hook', startedAt: at, ending: null, endedBy: null };
  return {
    by: 'hook',
    startedAt: turn && turn.ending === null ? turn.startedAt : at,
    ending: event.ending,
    endedBy: { hook: event.event },
  };
}

/**
 * The observers' word on the turn started at `startedAt`: the first ending an observer told for
 * a turn is theirs; a later one for the same turn changes nothing.
 */
export function foldObserverEnding(
  turn: RecordTurn | null,
  event: ObserverEnding,
  startedAt: number,
): RecordTurn {
  if (turn?.ending && turn.startedAt === startedAt) return turn;
  return {
    by: 'observer',
    startedAt,
    ending: event.ending,
    endedBy: { observer: event.observer },
  };
}

/** The chart event an ending stands for. */
export function outcomeEventOf(
  ending: MarkerEnding,
): Exclude<OutcomeEvent, 'evt_success_retracted'> {
  return ending.reason === 'success'
    ? 'evt_success_settled'
    : ending.reason === 'interrupted'
      ? 'evt_interrupted'
      : 'evt_known_failure';
}

/** The screen as the turn charts see it when a witness event arrives. */
export interface WitnessScreen {
  /** The open turn, if any. */
  turn: { id: string; startedAt: number } | null;
  /** When the latest turn started (it may have ended since). */
  lastStartedAt: number | null;
  phase: TurnPhaseState;
  /** A success candidate's settle window is running. */
  settling: boolean;
  /** The turn showed evidence of its own (activity, a changed transcript). */
  evidence: boolean;
  /** The latest frame. */
  frame: { available: boolean; signals: FrameSignals & { blockedPrompt: unknown } } | null;
}

/** The screen and the session record disagreed for longer than the window (docs/witness.md). */
export interface WitnessDisagreement {
  t: number;
  turnId: string;
  /** What the record said; `open` when it had not ended the turn. */
  record: 'success' | 'interrupted' | 'known_failure' | 'open';
  /** What the screen showed: the turn phase and whether a success candidate was settling. */
  screen: { phase: TurnPhaseState; successCandidate: boolean };
  /** Who decided in the end. */
  decided: OutcomeWitness;
  evidence: MarkerEvidence | null;
}

/** Why a completion observer's ending was not taken (null: it was). */
export type ObserverRefusal = 'surface' | 'not_current_turn' | 'already_ended';

export type WitnessEvent =
  | { type: 'record_available'; t: number; available: boolean; screen: WitnessScreen }
  | { type: 'record_event'; t: number; event: RecordPiece; screen: WitnessScreen }
  | { type: 'hook_event'; t: number; event: HookPiece; screen: WitnessScreen }
  | { type: 'observer_ending'; t: number; event: ObserverEnding; screen: WitnessScreen }
  /** A frame was read (the screen may now agree with the record). */
  | { type: 'frame'; t: number; screen: WitnessScreen }
  /** The screen's success candidate stayed unchanged for the settle window. */
  | { type: 'settle_elapsed'; t: number; screen: WitnessScreen }
  /** The disagreement window ran out. */
  | { type: 'window_elapsed'; t: number; screen: WitnessScreen }
  /** A prompt was submitted through paneward. */
  | { type: 'turn_armed' }
  /** The turn-phase chart reported an outcome; `decidedBy`: the verdict it followed, if any. */
  | {
      type: 'outcome';
      reason: MarkerEnding['reason'];
      startedAt: number;
      at: number;
      decidedBy: OutcomeWitness | null;
    }
  /** Raised: a marker witness ended a turn. */
  | { type: 'marker_ended'; t: number; screen: WitnessScreen };

/**
 * What the chart asks of its driver: the disagreement window (a timer), the screen's settle
 * window cancelled, a disagreement journaled, and a verdict: the event the turn-phase chart is
 * sent, and who decided it (null: the screen's rules alone, the witness read from the markers).
 */
export type WitnessRequest =
  | { type: 'window.start'; due: number }
  | { type: 'window.cancel' }
  | { type: 'settle.cancel' }
  | { type: 'disagreement'; disagreement: WitnessDisagreement }
  | {
      type: 'verdict';
      t: number;
      by: OutcomeWitness | null;
      send:
        | { type: 'settle_window_elapsed' }
        | { type: 'record_outcome'; outcome: Exclude<OutcomeEvent, 'evt_success_retracted'> };
    };

export interface WitnessContext {
  config: WitnessConfig | null;
  /** The latest turn as the session record, the CLI's hooks and the observers tell it. */
  markers: Record<MarkerSource, RecordTurn | null>;
  /** The session record is being followed (found, and its reader has not stepped aside). */
  recordLive: boolean;
  /**
   * The record was found, or a hook or observer told an event, at least once: from then on each
   * outcome names its witness.
   */
  recordSeen: boolean;
  /** Who decided the latest outcome. */
  lastWitness: OutcomeWitness | null;
  /** The latest outcome the screen decided alone, which the record may yet confirm. */
  screenOnly: { startedAt: number; reason: MarkerEnding['reason']; at: number } | null;
  /** The answer to the latest completion observer's ending. */
  refusal: ObserverRefusal | null;
}

export interface WitnessInput {
  /** Completion authority; the screen alone when absent. */
  config?: WitnessConfig;
}

/** Each marker witness's latest turn that is the turn started at `startedAt`. */
export function markersOf(c: WitnessContext, startedAt: number): RecordTurn[] {
  const all = [c.recordLive ? c.markers.record : null, c.markers.hook, c.markers.observer];
  // An observer names its turn, so its ending is that turn's exactly; the record and hooks are
  // matched by time.
  return all.filter(
    (m): m is RecordTurn =>
      m !== null &&
      (m.by === 'observer'
        ? m.startedAt === startedAt
        : m.startedAt >= startedAt - RECORD_TURN_SLACK_SECONDS),
  );
}

/**
 * The marker witnesses' latest turn, when it is that of the turn started at `startedAt`: one
 * that ended it (the record's first), else one still open (one that can tell a success first,
 * so a screen success waits for it).
 */
export function recordOf(c: WitnessContext, startedAt: number): RecordTurn | null {
  const mine = markersOf(c, startedAt);
  const w = c.config;
  return (
    mine.find((m) => m.ending !== null) ??
    mine.find((m) => w !== null && markerTells(w, m.by, 'success')) ??
    mine[0] ??
    null
  );
}

/**
 * Whether a frame can change anything: only a marker's success can agree with the screen, so
 * with no marker turn at all under a weighing authority (or under `surface`) frames are not
 * told (the guards of `frame` would all fail).
 */
export function framesMatter(c: WitnessContext): boolean {
  return (
    weighed(c) &&
    (c.markers.record !== null || c.markers.hook !== null || c.markers.observer !== null)
  );
}

/**
 * The marker witnesses' evidence that the latest turn ended with a success, or null: the payload
 * of the kernel's completion observer (a candidate completes at once, docs/statecharts.md §2).
 */
export function successEvidence(c: WitnessContext, screen: WitnessScreen): MarkerEvidence | null {
  if (!c.config || c.config.authority === 'surface') return null;
  // The completion chart outlives the turn's outcome: the latest turn started, open or not.
  const startedAt = screen.turn?.startedAt ?? screen.lastStartedAt;
  const rec = startedAt === null ? null : recordOf(c, startedAt);
  return rec?.ending?.reason === 'success' ? rec.endedBy : null;
}

/** The evidence of each marker witness that ended the turn started at `startedAt` this way. */
export function evidenceOf(
  c: WitnessContext,
  reason: MarkerEnding['reason'],
  startedAt: number,
): {
  record?: { file: string; offset: number; event: string };
  hook?: { event: string };
  observer?: { name: string };
} {
  const out: ReturnType<typeof evidenceOf> = {};
  for (const m of markersOf(c, startedAt)) {
    const e = m.endedBy;
    if (m.ending?.reason !== reason || !e) continue;
    if ('hook' in e) out.hook = { event: e.hook };
    else if ('observer' in e) out.observer = { name: e.observer };
    else out.record = e;
  }
  return out;
}

type Args = { context: WitnessContext; event: WitnessEvent };
type ScreenEvent = Extract<WitnessEvent, { screen: WitnessScreen }>;

const screenOf = (event: WitnessEvent): WitnessScreen => (event as ScreenEvent).screen;
const tOf = (event: WitnessEvent): number => (event as ScreenEvent).t;
/** The marker witnesses' word on the open turn. */
const current = ({ context, event }: Args): RecordTurn | null => {
  const turn = screenOf(event).turn;
  return turn ? recordOf(context, turn.startedAt) : null;
};
const marksSuccess = (a: Args): boolean => current(a)?.ending?.reason === 'success';

/** The screen reads an idle prompt: ready posture, nothing active, no marker, no dialog. */
function screenReady(screen: WitnessScreen): boolean {
  const f = screen.frame;
  if (!f?.available || !screen.evidence) return false;
  const s = f.signals;
  return (
    s.readyPosture === 'yes' &&
    s.acceptingInput === 'yes' &&
    s.editingInput !== 'yes' &&
    s.activeReasons.length === 0 &&
    !s.interrupted &&
    s.knownFailure === null &&
    s.blockedPrompt === null &&
    !s.ambiguous
  );
}

const settle = { type: 'settle_window_elapsed' } as const;
const weighed = (c: WitnessContext): boolean => !!c.config && c.config.authority !== 'surface';

/**
 * Who settles a turn (docs/witness.md): the screen, the session record, the CLI's hooks, or a
 * completion observer, under the terminal's completion authority. The states say what the
 * witness is waiting for: nothing (`watching`), the disagreement window to run out
 * (`disagreeing`: a marker ended the turn the screen has not), the record to end a turn whose
 * success the screen already settled (`holding`, with the window; `holding_unbounded`, held
 * with no window running). The driver keeps the window's timer and sends the turn-phase chart
 * the verdicts this emits.
 */
export const witnessMachine = setup({
  types: {
    context: {} as WitnessContext,
    input: {} as WitnessInput,
    events: {} as WitnessEvent,
    emitted: {} as WitnessRequest,
  },
  guards: {
    /** No completion witness, or the screen alone decides. */
    authority_surface: ({ context }) => !weighed(context),
    /** The markers are weighed (the authority is `markers` or `both`). */
    markers_weighed: ({ context }) => weighed(context),
    /** The session record is followed, and weighed. */
    record_followed: ({ context }) => weighed(context) && context.recordLive,
    /** A record piece, followed, that ended the latest record turn (a fresh ending). */
    record_piece_ends_turn: ({ context, event }) => {
      const e = event as Extract<WitnessEvent, { type: 'record_event' }>;
      if (!weighed(context) || !context.recordLive) return false;
      const next = foldRecordEvent(context.markers.record, e.event, e.t);
      return next !== context.markers.record && next.ending !== null;
    },
    hook_tells_ending: ({ context, event }) =>
      weighed(context) &&
      (event as Extract<WitnessEvent, { type: 'hook_event' }>).event.type === 'turn_ended',
    observer_not_current_turn: ({ event }) => {
      const e = event as Extract<WitnessEvent, { type: 'observer_ending' }>;
      return e.screen.turn?.id !== e.event.turnId;
    },
    observer_already_ended: ({ context, event }) => {
      const before = context.markers.observer;
      return !!before?.ending && before.startedAt === screenOf(event).turn?.startedAt;
    },
    /** Under `markers` a marker's ending of the open turn is its outcome at once. */
    marker_decides_under_markers: (a) =>
      !!current(a)?.ending && a.context.config?.authority === 'markers',
    /** A marker's success and the screen's success candidate (settling, or held) agree. */
    marker_success_while_settling: (a, held: boolean) =>
      marksSuccess(a) && (screenOf(a.event).settling || held),
    /** A marker's success and a ready idle prompt after the turn's own evidence agree. */
    marker_success_at_idle_prompt: (a) => marksSuccess(a) && screenReady(screenOf(a.event)),
    /** The screen's held success is one a marker says ended otherwise: the marker wins. */
    marker_disproves_held_success: (a) => !!current(a)?.ending && !marksSuccess(a),
    marker_ended_turn: (a) => !!current(a)?.ending,
    /** The screen's settled success has no marker turn to answer to. */
    no_marker_turn: (a) => current(a) === null,
    marker_success_on_settle: (a) => marksSuccess(a),
    /** A marker turn open whose witness cannot tell a success (Gemini's record): not waited for. */
    marker_cannot_tell_success: (a) => {
      const rec = current(a);
      return rec?.ending === null && !markerTells(a.context.config!, rec.by, 'success');
    },
    marker_turn_open: (a) => current(a)?.ending === null,
    turn_open: ({ event }) => screenOf(event).turn !== null,
    record_available: ({ event }) =>
      (event as Extract<WitnessEvent, { type: 'record_available' }>).available,
  },
  actions: {
    note_record: assign(({ event }) => {
      const available = (event as Extract<WitnessEvent, { type: 'record_available' }>).available;
      return available ? { recordLive: true, recordSeen: true } : { recordLive: false };
    }),
    drop_record: assign(({ context }) => ({
      markers: { ...context.markers, record: null },
    })),
    fold_record: assign(({ context, event }) => {
      const e = event as Extract<WitnessEvent, { type: 'record_event' }>;
      return {
        markers: {
          ...context.markers,
          record: foldRecordEvent(context.markers.record, e.event, e.t),
        },
      };
    }),
    fold_hook: assign(({ context, event }) => {
      const e = event as Extract<WitnessEvent, { type: 'hook_event' }>;
      return {
        recordSeen: true,
        markers: { ...context.markers, hook: foldHookEvent(context.markers.hook, e.event, e.t) },
      };
    }),
    fold_observer: assign(({ context, event }) => {
      const e = event as Extract<WitnessEvent, { type: 'observer_ending' }>;
      const observer = foldObserverEnding(
        context.markers.observer,
        e.event,
        e.screen.turn!.startedAt,
      );
      return { recordSeen: true, refusal: null, markers: { ...context.markers, observer } };
    }),
    refuse: assign((_, refusal: ObserverRefusal) => ({ refusal })),
    /**
     * The screen decided the latest turn's outcome alone, and a marker now ends that turn the
     * same way within the window: both witnessed it (the CLI may write its record a moment
     * after it draws the marker).
     */
    confirm_screen_outcome: assign(({ context, event }) => {
      const last = context.screenOnly;
      const t = tOf(event);
      if (!last || screenOf(event).turn || t - last.at > context.config!.windowSeconds) {
        return { screenOnly: null };
      }
      const rec = recordOf({ ...context, screenOnly: null }, last.startedAt);
      return rec?.ending?.reason === last.reason
        ? { screenOnly: null, lastWitness: 'both' as const }
        : { screenOnly: null };
    }),
    marker_ended: raise(({ event }) => ({
      type: 'marker_ended' as const,
      t: tOf(event),
      screen: screenOf(event),
    })),
    start_window: emit(({ context, event }) => ({
      type: 'window.start' as const,
      due: tOf(event) + context.config!.windowSeconds,
    })),
    cancel_window: emit({ type: 'window.cancel' as const }),
    cancel_settle: emit({ type: 'settle.cancel' as const }),
    /** Sends the screen's settled success on, decided by `by` (null: the screen's rules). */
    settle: emit(({ event }, by: OutcomeWitness | null) => ({
      type: 'verdict' as const,
      t: tOf(event),
      by,
      send: settle,
    })),
    /** The record's success with the screen reading ready: both witnessed it. */
    agree_at_idle_prompt: emit(({ event }) => ({
      type: 'verdict' as const,
      t: tOf(event),
      by: 'both' as const,
      send: { type: 'record_outcome' as const, outcome: 'evt_success_settled' as const },
    })),
    /** The held success goes ahead on the screen's word, the record still open. */
    release_held: enqueueActions(({ event, enqueue }) => {
      const screen = screenOf(event);
      const t = tOf(event);
      if (screen.turn) {
        enqueue.emit({
          type: 'disagreement',
          disagreement: {
            t,
            turnId: screen.turn.id,
            record: 'open',
            screen: { phase: screen.phase, successCandidate: true },
            decided: 'surface',
            evidence: null,
          },
        });
      }
      enqueue.emit({ type: 'verdict', t, by: 'surface', send: settle });
    }),
    /**
     * The marker's ending becomes the open turn's outcome; `disagreed`: the screen showed
     * otherwise for the window (whether its success candidate was settling or held).
     */
    marker_decides: enqueueActions(
      ({ context, event, enqueue }, disagreed: { successCandidate: boolean } | null) => {
        const screen = screenOf(event);
        const rec = current({ context, event });
        const t = tOf(event);
        if (!rec?.ending || !screen.turn) return;
        enqueue.emit({ type: 'window.cancel' });
        if (disagreed) {
          enqueue.emit({
            type: 'disagreement',
            disagreement: {
              t,
              turnId: screen.turn.id,
              record: rec.ending.reason,
              screen: {
                phase: screen.phase,
                successCandidate: disagreed.successCandidate || screen.settling,
              },
              decided: rec.by,
              evidence: rec.endedBy,
            },
          });
        }
        enqueue.emit({
          type: 'verdict',
          t,
          by: rec.by,
          send: { type: 'record_outcome', outcome: outcomeEventOf(rec.ending) },
        });
      },
    ),
    /** Who decided the outcome the turn-phase chart reported. */
    note_outcome: assign(({ context, event }) => {
      const e = event as Extract<WitnessEvent, { type: 'outcome' }>;
      const agreed = markersOf(context, e.startedAt).some((m) => m.ending?.reason === e.reason);
      const witness = e.decidedBy ?? (agreed ? 'both' : 'surface');
      return {
        lastWitness: witness,
        screenOnly:
          witness === 'surface' ? { startedAt: e.startedAt, reason: e.reason, at: e.at } : null,
      };
    }),
  },
}).createMachine({
  id: 'witness',
  initial: 'choosing',
  context: ({ input }) => ({
    config: input?.config ?? null,
    markers: { record: null, hook: null, observer: null },
    recordLive: false,
    recordSeen: false,
    lastWitness: null,
    screenOnly: null,
    refusal: null,
  }),
  on: {
    record_available: [
      { guard: 'record_available', actions: 'note_record' },
      { actions: ['note_record', 'drop_record'] },
    ],
    record_event: [
      {
        guard: 'record_piece_ends_turn',
        actions: ['fold_record', 'confirm_screen_outcome', 'marker_ended'],
      },
      { guard: 'record_followed', actions: 'fold_record' },
    ],
    hook_event: [
      {
        guard: 'hook_tells_ending',
        actions: ['fold_hook', 'confirm_screen_outcome', 'marker_ended'],
      },
      { guard: 'markers_weighed', actions: 'fold_hook' },
    ],
    observer_ending: [
      {
        guard: 'observer_not_current_turn',
        actions: { type: 'refuse', params: 'not_current_turn' },
      },
      { guard: 'observer_already_ended', actions: { type: 'refuse', params: 'already_ended' } },
      { actions: ['fold_observer', 'confirm_screen_outcome', 'marker_ended'] },
    ],
    turn_armed: { guard: 'markers_weighed', target: '.watching', actions: 'cancel_window' },
    outcome: { target: '.watching', actions: ['note_outcome', 'cancel_window'] },
  },
  states: {
    choosing: {
      always: [{ guard: 'authority_surface', target: 'screen_alone' }, { target: 'watching' }],
    },
    /** The screen alone decides: the markers are not read. */
    screen_alone: {
      on: {
        settle_elapsed: { actions: { type: 'settle', params: null } },
        observer_ending: { actions: { type: 'refuse', params: 'surface' } },
        outcome: { actions: 'note_outcome' },
      },
    },
    /** Nothing held, no window running. */
    watching: {
      on: {
        record_available: [
          { guard: 'record_available', actions: 'note_record' },
          { actions: ['note_record', 'drop_record', 'cancel_window'] },
        ],
        settle_elapsed: [
          { guard: 'no_marker_turn', actions: { type: 'settle', params: null } },
          { guard: 'marker_success_on_settle', actions: { type: 'settle', params: 'both' } },
          { guard: 'marker_cannot_tell_success', actions: { type: 'settle', params: 'surface' } },
          { guard: 'marker_turn_open', target: 'holding', actions: 'start_window' },
          { target: 'holding_unbounded' },
        ],
        frame: [
          {
            guard: { type: 'marker_success_while_settling', params: false },
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_success_at_idle_prompt',
            actions: ['cancel_window', 'agree_at_idle_prompt'],
          },
        ],
        marker_ended: [
          {
            guard: 'marker_decides_under_markers',
            actions: { type: 'marker_decides', params: null },
          },
          {
            guard: { type: 'marker_success_while_settling', params: false },
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_success_at_idle_prompt',
            actions: ['cancel_window', 'agree_at_idle_prompt'],
          },
          { guard: 'marker_ended_turn', target: 'disagreeing', actions: 'start_window' },
        ],
      },
    },
    /** A marker ended the open turn a way the screen has not shown: the window runs. */
    disagreeing: {
      on: {
        record_available: [
          { guard: 'record_available', actions: 'note_record' },
          { target: 'watching', actions: ['note_record', 'drop_record', 'cancel_window'] },
        ],
        settle_elapsed: [
          { guard: 'no_marker_turn', actions: { type: 'settle', params: null } },
          { guard: 'marker_success_on_settle', actions: { type: 'settle', params: 'both' } },
          { guard: 'marker_cannot_tell_success', actions: { type: 'settle', params: 'surface' } },
          { guard: 'marker_turn_open', target: 'holding', actions: 'start_window' },
          { target: 'holding' },
        ],
        frame: [
          {
            guard: { type: 'marker_success_while_settling', params: false },
            target: 'watching',
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_success_at_idle_prompt',
            target: 'watching',
            actions: ['cancel_window', 'agree_at_idle_prompt'],
          },
        ],
        marker_ended: [
          {
            guard: 'marker_decides_under_markers',
            target: 'watching',
            actions: { type: 'marker_decides', params: null },
          },
          {
            guard: { type: 'marker_success_while_settling', params: false },
            target: 'watching',
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_success_at_idle_prompt',
            target: 'watching',
            actions: ['cancel_window', 'agree_at_idle_prompt'],
          },
          { guard: 'marker_ended_turn', actions: 'start_window' },
        ],
        window_elapsed: [
          {
            guard: 'marker_ended_turn',
            target: 'watching',
            actions: { type: 'marker_decides', params: { successCandidate: false } },
          },
          { target: 'watching' },
        ],
      },
    },
    /** The screen's success waits for the record, at most the window. */
    holding: {
      on: {
        record_available: [
          { guard: 'record_available', actions: 'note_record' },
          {
            target: 'watching',
            actions: ['note_record', 'drop_record', 'cancel_window', 'release_held'],
          },
        ],
        settle_elapsed: [
          { guard: 'no_marker_turn', actions: { type: 'settle', params: null } },
          { guard: 'marker_success_on_settle', actions: { type: 'settle', params: 'both' } },
          { guard: 'marker_cannot_tell_success', actions: { type: 'settle', params: 'surface' } },
          { guard: 'marker_turn_open', actions: 'start_window' },
        ],
        frame: {
          guard: { type: 'marker_success_while_settling', params: true },
          target: 'watching',
          actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
        },
        marker_ended: [
          {
            guard: 'marker_decides_under_markers',
            target: 'watching',
            actions: { type: 'marker_decides', params: null },
          },
          {
            guard: { type: 'marker_success_while_settling', params: true },
            target: 'watching',
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_disproves_held_success',
            target: 'watching',
            actions: { type: 'marker_decides', params: { successCandidate: true } },
          },
        ],
        window_elapsed: [
          {
            guard: 'marker_ended_turn',
            target: 'watching',
            actions: { type: 'marker_decides', params: { successCandidate: true } },
          },
          { guard: 'turn_open', target: 'watching', actions: 'release_held' },
          { target: 'holding_unbounded' },
        ],
      },
    },
    /** The screen's success is held, and no window runs: a marker, a frame or an outcome ends it. */
    holding_unbounded: {
      on: {
        record_available: [
          { guard: 'record_available', actions: 'note_record' },
          {
            target: 'watching',
            actions: ['note_record', 'drop_record', 'cancel_window', 'release_held'],
          },
        ],
        settle_elapsed: [
          { guard: 'no_marker_turn', actions: { type: 'settle', params: null } },
          { guard: 'marker_success_on_settle', actions: { type: 'settle', params: 'both' } },
          { guard: 'marker_cannot_tell_success', actions: { type: 'settle', params: 'surface' } },
          { guard: 'marker_turn_open', target: 'holding', actions: 'start_window' },
        ],
        frame: {
          guard: { type: 'marker_success_while_settling', params: true },
          target: 'watching',
          actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
        },
        marker_ended: [
          {
            guard: 'marker_decides_under_markers',
            target: 'watching',
            actions: { type: 'marker_decides', params: null },
          },
          {
            guard: { type: 'marker_success_while_settling', params: true },
            target: 'watching',
            actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
          },
          {
            guard: 'marker_disproves_held_success',
            target: 'watching',
            actions: { type: 'marker_decides', params: { successCandidate: true } },
          },
        ],
      },
    },
  },
});

export type WitnessState =
  'choosing' | 'screen_alone' | 'watching' | 'disagreeing' | 'holding' | 'holding_unbounded';
