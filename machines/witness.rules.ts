import { assign, emit, enqueueActions, raise, setup } from 'xstate';
import {
  foldHookEvent,
  foldObserverEnding,
  foldRecordEvent,
  markersOf,
  markerTells,
  outcomeEventOf,
  recordOf,
  weighed,
} from './witness.markers.js';
import type {
  ObserverRefusal,
  OutcomeWitness,
  RecordTurn,
  WitnessContext,
  WitnessEvent,
  WitnessInput,
  WitnessRequest,
  WitnessScreen,
} from './witness.types.js';

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

/** The witness chart's guards and actions, by name (the states are in witness.ts). */
export const witnessRules = setup({
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
    /** The turn whose success is held is still the open one. */
    held_turn_open: ({ context, event }) => screenOf(event).turn?.id === context.held,
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
    // Held only for a marker turn of the open turn: there is one.
    note_held: assign({ held: ({ event }) => screenOf(event).turn!.id }),
    forget_held: assign({ held: null }),
    cancel_settle: emit({ type: 'settle.cancel' as const }),
    /**
     * Sends the screen's settled success on, decided by `by` (null: the screen's rules). One a
     * marker witnessed too is final, as a success the record decides is.
     */
    settle: emit(({ event }, by: OutcomeWitness | null) => ({
      type: 'verdict' as const,
      t: tOf(event),
      by,
      send: by === null || by === 'surface' ? settle : { ...settle, witnessed: true as const },
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
});
