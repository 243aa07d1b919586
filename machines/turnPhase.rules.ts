import { assign, emit, enqueueActions, raise, setup, stateIn } from 'xstate';
import {
  evidenceWith,
  frameOf,
  guard,
  handPromptAfter,
  idlePhaseOf,
  isActive,
  markerOf,
  outcomeOf,
  outcomeShown,
  ownMarker,
  screenPrint,
  PHASE_EVENT,
  PHASE_PICK,
  settleSignature,
  staleSignature,
  withdrawn,
  type Phase,
} from './turnPhase.frames.js';
import type {
  TurnInfo,
  TurnPhaseContext,
  TurnPhaseEmitted,
  TurnPhaseEvent,
  TurnPhaseInput,
} from './turnPhase.types.js';

/** The turn-phase chart's types, guards and actions: the rules its transitions name. */
export const turnPhaseRules = setup({
  types: {
    context: {} as TurnPhaseContext,
    input: {} as TurnPhaseInput,
    events: {} as TurnPhaseEvent,
    emitted: {} as TurnPhaseEmitted,
  },
  guards: {
    diagnostics_degraded: guard((_, f) => !f.available),
    /**
     * Within one settle window after a success settled, with nothing else on screen (no
     * draft, no activity, no marker), the reply was rewritten: the same turn goes on.
     */
    settled_reply_rewritten: guard(
      (c, f) =>
        // (A settled success is forgotten as soon as a turn opens.)
        c.settled !== null &&
        f.t - c.settled.at <= c.settleSeconds &&
        screenPrint(f.projection) !== c.settled.print &&
        f.signals.editingInput !== 'yes' &&
        !isActive(f) &&
        !outcomeShown(f),
    ),
    /**
     * After a success settled, and before another turn starts (at most `retractSeconds` later),
     * the screen shows an interrupt or failure marker with no draft under it: the same turn's
     * surface says it was not a success.
     */
    settled_success_disproved: guard(
      (c, f) =>
        c.settled !== null &&
        f.t - c.settled.at <= c.retractSeconds &&
        f.signals.editingInput !== 'yes' &&
        handPromptAfter(c, f) === null &&
        outcomeShown(f),
    ),
    /**
     * A prompt typed by hand was submitted and the screen already shows its outcome (with no
     * draft: a draft drops the pending prompt).
     */
    hand_prompt_outcome: guard(
      (c, f) =>
        c.current === null &&
        handPromptAfter(c, f) !== null &&
        (outcomeShown(f) || f.signals.successCandidate),
    ),
    stale_marker_under_draft: guard(
      (c, f) =>
        c.current === null &&
        f.signals.editingInput === 'yes' &&
        f.signals.acceptingInput === 'yes' &&
        outcomeShown(f),
    ),
    /** A turn is open without evidence of its own (activity, or a changed transcript). */
    turn_without_evidence: guard((c, f) => {
      const ev = evidenceWith(c, f);
      return ev !== null && !ev.sawActive && !ev.projectionChanged;
    }),
    turn_interrupted: guard((c, f) => f.signals.interrupted && ownMarker(c, f)),
    turn_withdrawn: guard(withdrawn),
    turn_failed: guard((c, f) => f.signals.knownFailure !== null && ownMarker(c, f)),
    /**
     * An outcome on screen with no turn open (an open turn showing its own ended at (b) or (c);
     * one still showing the last turn's goes on to (d)–(f)).
     */
    outcome_marker_without_turn: guard((c, f) => c.current === null && outcomeShown(f)),
    active_evidence: guard((_, f) => isActive(f)),
    success_candidate_under_draft: guard(
      (c, f) =>
        c.current !== null && f.signals.successCandidate && f.signals.editingInput === 'yes',
    ),
    success_candidate: guard((c, f) => c.current !== null && f.signals.successCandidate),
    /** A turn is open and the screen is an idle prompt (no activity, no marker, no candidate). */
    idle_prompt_under_turn: guard((c, f) => c.current !== null && idlePhaseOf(f) === 'ready'),
    /**
     * The stale-active window elapsed: the open turn's CLI sat at the same idle prompt with no
     * activity all along. The turn ends with no outcome (nothing says how it ended).
     */
    stale_active_recovery: ({ context }) => context.current !== null && context.staleSince !== null,
    turn_open: ({ context }) => context.current !== null,
  },
  actions: {
    /** Folds the frame into the open turn's evidence and remembers what the next frame compares with. */
    remember_frame: assign(({ context, event }) => {
      const f = frameOf(event);
      return {
        evidence: evidenceWith(context, f),
        handPrompt: context.current ? null : handPromptAfter(context, f),
        lastProjection: f.projection,
        lastReadyPosture: f.signals.readyPosture,
        lastEditing: f.signals.editingInput,
        lastMarker: markerOf(f),
      };
    }),
    infer_turn: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (context.current) return;
      const hand = handPromptAfter(context, f);
      const turn: TurnInfo = {
        id: f.inferredTurnId,
        source: 'surface_inference',
        startedAt: hand?.at ?? f.t,
      };
      enqueue.assign({
        current: turn,
        evidence: {
          projectionAtArm: hand?.projectionBefore ?? f.projection,
          printAtArm: null,
          sawActive: false,
          projectionChanged: false,
          markerAtArm: hand ? hand.markerBefore : markerOf(f),
          markerChanged: false,
        },
        settled: null,
        handPrompt: null,
      });
      enqueue.emit({ type: 'turn_started', turn });
    }),
    /** On `turn_armed` only. */
    arm_explicit_turn: enqueueActions(({ context, event: e, enqueue }) => {
      const event = e as Extract<TurnPhaseEvent, { type: 'turn_armed' }>;
      const open = context.current;
      // A turn still open when another is submitted ends without an outcome of its own.
      if (open) enqueue.emit({ type: 'turn_superseded', turn: open, at: event.t });
      const turn: TurnInfo = { id: event.turnId, source: 'explicit_input', startedAt: event.t };
      enqueue.assign({
        current: turn,
        evidence: {
          projectionAtArm: context.lastProjection,
          printAtArm: null,
          sawActive: false,
          projectionChanged: false,
          markerAtArm: context.lastMarker,
          markerChanged: false,
        },
        settled: null,
        handPrompt: null,
      });
      enqueue.emit({ type: 'turn_started', turn });
    }),
    end_turn: assign({ current: null, evidence: null }),
    /**
     * On `settle_window_elapsed` with a turn open, before the turn ends: the success may still
     * be withdrawn, unless a marker witnessed it (the record says the run ended: what the screen
     * draws next is no longer that turn's to change).
     */
    remember_settled: assign(({ context, event }) => {
      const e = event as Extract<TurnPhaseEvent, { type: 'settle_window_elapsed' }>;
      if (e.witnessed) return { settled: null };
      return {
        settled: {
          turn: context.current!,
          // Stryker disable next-line LogicalOperator,StringLiteral: a settle window is only started by a frame, which sets lastProjection, so it is never null here
          print: screenPrint(context.lastProjection ?? ''),
          at: e.t,
        },
      };
    }),
    /**
     * The settled success is withdrawn and its turn reopened: it visibly goes on (`rewritten`),
     * or its own marker says how it really ended (`marker`: the turn had evidence, so the
     * marker is its outcome).
     */
    retract_settled_success: enqueueActions(
      ({ context, event, enqueue }, params: { by: 'rewritten' | 'marker' }) => {
        const f = frameOf(event);
        // Bound to `settled_reply_rewritten` and `settled_success_disproved`, which need one.
        const settled = context.settled!;
        enqueue.emit({
          type: 'outcome',
          outcome: 'evt_success_retracted',
          turnId: settled.turn.id,
          source: settled.turn.source,
          startedAt: settled.turn.startedAt,
          at: f.t,
          rule: params.by === 'marker' ? 'retract_disproved' : 'retract_rewritten',
        });
        enqueue.assign({
          current: settled.turn,
          evidence: {
            projectionAtArm: null,
            printAtArm: settled.print,
            sawActive: false,
            // Stryker disable next-line BooleanLiteral: after a rewrite, the frame that reopened the turn is classified again at once, and it differs from the settled projection (the guard's condition), so every branch folds projectionChanged to true
            projectionChanged: params.by === 'marker',
            // The marker that disproved the success is this turn's own.
            markerAtArm: null,
            markerChanged: false,
          },
          settled: null,
        });
      },
    ),
    /** Classifies the same frame again, now that a turn is open. */
    reclassify_frame: raise(({ event }) => event),
    start_settle_window: enqueueActions(({ context, event, enqueue }) => {
      const signature = settleSignature(frameOf(event));
      if (context.settling === signature) return;
      enqueue.assign({ settling: signature });
      enqueue.emit({ type: 'settle_window.start', seconds: context.settleSeconds });
    }),
    cancel_settle_window: enqueueActions(({ context, enqueue }) => {
      if (context.settling === null) return;
      enqueue.assign({ settling: null });
      enqueue.emit({ type: 'settle_window.cancel' });
    }),
    settle_window_done: assign({ settling: null }),
    /** Arms (or keeps, for the same screen) the stale-active window. */
    start_stale_window: enqueueActions(({ context, event, enqueue }) => {
      const signature = staleSignature(frameOf(event));
      if (context.staleSince === signature) return;
      enqueue.assign({ staleSince: signature });
      enqueue.emit({ type: 'stale_window.start', seconds: context.staleActiveSeconds });
    }),
    cancel_stale_window: enqueueActions(({ context, enqueue }) => {
      if (context.staleSince === null) return;
      enqueue.assign({ staleSince: null });
      enqueue.emit({ type: 'stale_window.cancel' });
    }),
    stale_window_done: assign({ staleSince: null }),
    report_stale_active: emit(({ context, event }) => ({
      type: 'turn_abandoned' as const,
      turn: context.current!,
      at: (event as Extract<TurnPhaseEvent, { type: 'stale_active_elapsed' }>).t,
      rule: 'stale_active_recovery',
    })),
    /** A turn restored from the journal is an armed turn anchor: the phase starts active. */
    resume_restored_turn: enqueueActions(({ context, enqueue }) => {
      if (context.current) enqueue.raise({ type: 'evt_turn_started' });
    }),
    report_interrupted: emit((a) => outcomeOf('evt_interrupted', 'b_interrupted', a)),
    report_withdrawn: emit((a) => outcomeOf('evt_interrupted', 'b_turn_withdrawn', a)),
    report_known_failure: emit((a) => outcomeOf('evt_known_failure', 'c_known_failure', a)),
    report_success: emit((a) => outcomeOf('evt_success_settled', 'e_success_settled', a)),
    /** On `record_outcome`: the outcome the session record gave. */
    report_record_outcome: emit((a) =>
      outcomeOf(
        (a.event as Extract<TurnPhaseEvent, { type: 'record_outcome' }>).outcome,
        'record_outcome',
        a,
      ),
    ),
    /** Moves the phase with the chart's own event (docs/statecharts.md §4); `to` names the rule. */
    enter_phase: enqueueActions(
      ({ context, event, enqueue, check }, params: { to: keyof typeof PHASE_PICK }) => {
        const from: Phase = check(stateIn('active'))
          ? 'active'
          : check(stateIn('ready'))
            ? 'ready'
            : 'unknown';
        const type = PHASE_EVENT[from][PHASE_PICK[params.to]({ context, event })];
        // Stryker disable next-line ConditionalExpression: raising the null "event" when the phase stays matches no transition of the chart (it has no wildcard), so it changes nothing (never raising is caught by the phase tests)
        if (type) enqueue.raise({ type });
      },
    ),
  },
});
