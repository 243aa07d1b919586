import { witnessRules } from './witness.rules.js';

export * from './witness.types.js';
export {
  evidenceOf,
  foldHookEvent,
  foldObserverEnding,
  foldRecordEvent,
  framesMatter,
  markersOf,
  markerTells,
  outcomeEventOf,
  recordOf,
  recordTells,
  successEvidence,
} from './witness.markers.js';

/*
 * The transition lists the waiting states share, built once. A state that leaves for
 * `watching` on a branch passes it as `to`; one that stays passes nothing (a targetless
 * transition, its actions only).
 */
type To = { target?: 'watching' };
const stay: To = {};
const toWatching: To = { target: 'watching' };

/** The record found, or lost: losing it drops its turn, then `lost` says what else happens. */
const recordAvailable = <const L extends object>(lost: L) =>
  [{ guard: 'record_available', actions: 'note_record' }, lost] as const;
const LOST = ['note_record', 'drop_record', 'cancel_window'] as const;

/**
 * The screen's success candidate settled: the screen decides alone with no marker turn, both
 * decide with the marker's success, the screen decides when the open marker turn cannot tell a
 * success.
 */
const SETTLES = [
  { guard: 'no_marker_turn', actions: { type: 'settle', params: null } },
  { guard: 'marker_success_on_settle', actions: { type: 'settle', params: 'both' } },
  { guard: 'marker_cannot_tell_success', actions: { type: 'settle', params: 'surface' } },
] as const;

/**
 * Else the success is held (`open`: the transition kept when a marker turn is open, `rest`:
 * what follows it).
 */
const settleElapsed = <const O extends object, const R extends readonly object[]>(
  open: O,
  ...rest: R
) =>
  [...SETTLES, { guard: 'marker_turn_open', ...open, actions: 'start_window' }, ...rest] as const;

/** The markers' success and the screen's candidate (settling, or `held`) agree: both decide. */
const agreeOnCandidate = (held: boolean, to: To) =>
  ({
    guard: { type: 'marker_success_while_settling', params: held },
    ...to,
    actions: ['cancel_settle', 'cancel_window', { type: 'settle', params: 'both' }],
  }) as const;

/** The markers' success and a ready idle prompt agree (a candidate not held only). */
const agreeAtIdlePrompt = (to: To) =>
  ({
    guard: 'marker_success_at_idle_prompt',
    ...to,
    actions: ['cancel_window', 'agree_at_idle_prompt'],
  }) as const;

/** Under `markers`, a marker's ending is the open turn's outcome at once. */
const decideUnderMarkers = (to: To) =>
  ({
    guard: 'marker_decides_under_markers',
    ...to,
    actions: { type: 'marker_decides', params: null },
  }) as const;

/** The marker's ending decides, the screen having shown otherwise (its candidate `held`). */
const markerDecides = (
  guard: 'marker_ended_turn' | 'marker_disproves_held_success',
  held: boolean,
) =>
  ({
    guard,
    target: 'watching',
    actions: { type: 'marker_decides', params: { successCandidate: held } },
  }) as const;

/**
 * What a frame shows that agrees with the markers' success: the candidate settling (or `held`),
 * or, for a candidate not held, a ready idle prompt. A marker's ending checks the same first.
 */
const agreements = (held: boolean, to: To) =>
  held
    ? ([agreeOnCandidate(true, to)] as const)
    : ([agreeOnCandidate(false, to), agreeAtIdlePrompt(to)] as const);

/** What ends a held success: the record lost releases it; a frame or a marker decides. */
const HELD = {
  record_available: recordAvailable({ target: 'watching', actions: [...LOST, 'release_held'] }),
  frame: agreements(true, toWatching),
  marker_ended: [
    decideUnderMarkers(toWatching),
    ...agreements(true, toWatching),
    markerDecides('marker_disproves_held_success', true),
  ],
} as const;

/**
 * Who settles a turn (docs/witness.md): the screen, the session record, the CLI's hooks, or a
 * completion observer, under the terminal's completion authority. The states say what the
 * witness is waiting for: nothing (`watching`), the disagreement window to run out
 * (`disagreeing`: a marker ended the turn the screen has not; the screen standing idle past the
 * stale-active window cuts it short), the record to end a turn whose success the screen already
 * settled (`holding`, at most the window). The driver keeps the window's timer and sends the
 * turn-phase chart the verdicts this emits. The guards and actions are in witness.rules.ts.
 */
export const witnessMachine = witnessRules.createMachine({
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
    held: null,
  }),
  on: {
    record_available: recordAvailable({ actions: ['note_record', 'drop_record'] }),
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
        record_available: recordAvailable({ actions: LOST }),
        settle_elapsed: [
          ...SETTLES,
          // A marker that already ended the turn another way (read while no turn was open, the
          // turn reopened since) decides now under `markers`.
          {
            guard: 'marker_decides_under_markers',
            target: 'watching',
            actions: { type: 'marker_decides', params: { successCandidate: true } },
          },
          // Else the success waits for the marker, at most the window: for its ending while
          // its turn is open, or, having ended the turn another way, its ending wins when the
          // window runs out.
          { target: 'holding', actions: 'start_window' },
        ],
        frame: agreements(false, stay),
        marker_ended: [
          decideUnderMarkers(stay),
          ...agreements(false, stay),
          { guard: 'marker_ended_turn', target: 'disagreeing', actions: 'start_window' },
        ],
      },
    },
    /** A marker ended the open turn a way the screen has not shown: the window runs. */
    disagreeing: {
      on: {
        record_available: recordAvailable({ target: 'watching', actions: LOST }),
        settle_elapsed: settleElapsed({ target: 'holding' }, { target: 'holding' }),
        frame: agreements(false, toWatching),
        marker_ended: [
          decideUnderMarkers(toWatching),
          ...agreements(false, toWatching),
          { guard: 'marker_ended_turn', actions: 'start_window' },
        ],
        window_elapsed: [markerDecides('marker_ended_turn', false), { target: 'watching' }],
        // The screen will show nothing more: the marker's ending decides before the turn would
        // end with no outcome, whatever is left of the window.
        stale_elapsed: markerDecides('marker_ended_turn', false),
      },
    },
    /** The screen's success waits for the record, at most the window. */
    holding: {
      entry: 'note_held',
      exit: 'forget_held',
      on: {
        record_available: HELD.record_available,
        settle_elapsed: settleElapsed({}),
        frame: HELD.frame,
        marker_ended: HELD.marker_ended,
        window_elapsed: [
          markerDecides('marker_ended_turn', true),
          { guard: 'held_turn_open', target: 'watching', actions: 'release_held' },
          // The turn it was held for is no longer the open one: the success is no other turn's.
          { target: 'watching' },
        ],
      },
    },
  },
});

export type WitnessState = 'choosing' | 'screen_alone' | 'watching' | 'disagreeing' | 'holding';
