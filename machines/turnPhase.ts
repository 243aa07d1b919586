import { assign, emit, enqueueActions, raise, setup, stateIn } from 'xstate';

export type TriState = 'yes' | 'no' | 'unknown';
export type TurnSource = 'explicit_input' | 'surface_inference';

/** What one screen says about the turn (a tool profile's per-frame signals). */
export interface FrameSignals {
  acceptingInput: TriState;
  editingInput: TriState;
  readyPosture: TriState;
  activeReasons: readonly string[];
  interrupted: boolean;
  knownFailure: { kind: string; message: string } | null;
  successCandidate: boolean;
  ambiguous: boolean;
  chatContext: string;
}

/** A turn: its id, how it was started, and when (observation seconds). */
export interface TurnInfo {
  id: string;
  source: TurnSource;
  startedAt: number;
}

/** One frame as the chart sees it. */
export interface TurnFrame {
  /** Observation time (seconds). */
  t: number;
  /** Diagnostics are `available`: only then do the signals mean anything. */
  available: boolean;
  signals: FrameSignals;
  /** The normalised projection (the transcript as the profile reads it). */
  projection: string;
  /** The id a turn inferred from this frame takes (the driver hands out ids; the chart stays pure). */
  inferredTurnId: string;
}

export type TurnPhaseEvent =
  | ({ type: 'frame' } & TurnFrame)
  | { type: 'turn_armed'; t: number; turnId: string }
  | { type: 'settle_window_elapsed'; t: number }
  | { type: 'stale_active_elapsed'; t: number }
  | { type: 'evt_ready_posture' }
  | { type: 'evt_turn_started' }
  | { type: 'evt_turn_finished' }
  | { type: 'evt_posture_lost' };

export type OutcomeEvent =
  'evt_success_settled' | 'evt_interrupted' | 'evt_known_failure' | 'evt_success_retracted';

/**
 * What the chart tells its driver: settle-window requests, each turn's start, and each turn's
 * outcome for the last-turn chart.
 */
export type TurnPhaseEmitted =
  | { type: 'settle_window.start'; seconds: number }
  | { type: 'settle_window.cancel' }
  | { type: 'stale_window.start'; seconds: number }
  | { type: 'stale_window.cancel' }
  | { type: 'turn_started'; turn: TurnInfo }
  | { type: 'turn_superseded'; turn: TurnInfo; at: number }
  /** The turn ended with no outcome: its CLI sat at an idle prompt, unchanged (`rule`). */
  | { type: 'turn_abandoned'; turn: TurnInfo; at: number; rule: string }
  | {
      type: 'outcome';
      outcome: OutcomeEvent;
      turnId: string;
      source: TurnSource;
      /** When the turn started. */
      startedAt: number;
      at: number;
      rule: string;
    };

/** Evidence a turn has of its own: activity seen, or the transcript changed since it was armed. */
export interface TurnEvidence {
  /** The projection when the turn was armed; null: take the next frame's (a restored turn). */
  projectionAtArm: string | null;
  sawActive: boolean;
  projectionChanged: boolean;
  /**
   * The interrupt or failure marker on screen when the turn was armed ({@link markerOf}); null:
   * none, or not known (a restored turn).
   */
  markerAtArm: string | null;
  /** A frame since the turn was armed showed another marker, or none. */
  markerChanged: boolean;
}

export interface TurnPhaseContext {
  settleSeconds: number;
  /** How long an open turn may sit at an unchanged idle prompt before it ends with no outcome. */
  staleActiveSeconds: number;
  /** How long after it settled a success can still be disproved by its turn's own marker. */
  retractSeconds: number;
  current: TurnInfo | null;
  evidence: TurnEvidence | null;
  /** Signature of the success candidate the settle window runs for. */
  settling: string | null;
  /** Signature of the idle prompt the stale-active window runs for. */
  staleSince: string | null;
  /** The last settled success, while nothing else happened since (for retraction). */
  settled: { turn: TurnInfo; projection: string; at: number } | null;
  /** A prompt went from the input box into the transcript with no turn open: typed by hand. */
  handPrompt: {
    at: number;
    projectionBefore: string;
    markerBefore: string | null;
  } | null;
  lastProjection: string | null;
  lastReadyPosture: TriState;
  lastEditing: TriState;
  /** The interrupt or failure marker of the last frame ({@link markerOf}). */
  lastMarker: string | null;
}

/** Stale-active window when none is given: this much longer than the settle window. */
export const STALE_ACTIVE_MARGIN_SECONDS = 3;
/** How long after it settled a success can be disproved by its own turn's marker (by default). */
export const RETRACT_SECONDS = 60;

export interface TurnPhaseInput {
  settleSeconds?: number;
  /** Default: the settle window plus {@link STALE_ACTIVE_MARGIN_SECONDS}. */
  staleActiveSeconds?: number;
  /** Default: {@link RETRACT_SECONDS}. */
  retractSeconds?: number;
  /** A turn that was open when the terminal last stopped (restored from the journal). */
  openTurn?: { turn: TurnInfo; hadEvidence: boolean } | null;
}

type Ctx = { context: TurnPhaseContext; event: TurnPhaseEvent };

/** The frame an event is: the guards and actions that read it are bound to `frame` only. */
const frameOf = (event: TurnPhaseEvent): TurnFrame =>
  event as Extract<TurnPhaseEvent, { type: 'frame' }>;
const isActive = (f: TurnFrame): boolean => f.signals.activeReasons.length > 0;
const outcomeShown = (f: TurnFrame): boolean =>
  f.signals.interrupted || f.signals.knownFailure !== null;
/** The interrupt or failure marker a frame shows, as a comparable key; null: none. */
const markerOf = (f: TurnFrame): string | null =>
  outcomeShown(f)
    ? JSON.stringify([
        f.signals.interrupted,
        f.signals.knownFailure?.kind ?? null,
        f.signals.knownFailure?.message ?? null,
      ])
    : null;

/**
 * The open turn's own marker: an interrupt or failure marker that was not already on screen
 * when the turn was armed (the frame before the submit), or that went away (or changed) since
 * and is shown again. Until the CLI redraws, a just-armed turn's frames still show the last
 * turn's marker while the screen already moved (the pasted prompt, a scroll): that marker is the
 * last turn's outcome, not this one's. A turn showing only the last turn's marker goes on.
 */
function ownMarker(c: TurnPhaseContext, f: TurnFrame): boolean {
  const ev = evidenceWith(c, f);
  return ev !== null && outcomeShown(f) && (ev.markerChanged || markerOf(f) !== ev.markerAtArm);
}

/** The open turn's evidence once this frame is folded in (a turn has evidence exactly while open). */
function evidenceWith(context: TurnPhaseContext, f: TurnFrame): TurnEvidence | null {
  const ev = context.evidence;
  if (!ev) return null;
  const atArm = ev.projectionAtArm ?? f.projection;
  return {
    projectionAtArm: atArm,
    sawActive: ev.sawActive || isActive(f),
    projectionChanged: ev.projectionChanged || f.projection !== atArm,
    markerAtArm: ev.markerAtArm,
    markerChanged: ev.markerChanged || markerOf(f) !== ev.markerAtArm,
  };
}

/**
 * A turn that worked, then vanished from the transcript with its prompt handed back as a draft,
 * was withdrawn: an interrupt before any reply (what Claude Code does on Escape).
 */
function withdrawn(context: TurnPhaseContext, f: TurnFrame): boolean {
  const before = context.evidence;
  return (
    before !== null &&
    before.sawActive &&
    !isActive(f) &&
    f.signals.editingInput === 'yes' &&
    f.projection === before.projectionAtArm
  );
}

const settleSignature = (f: TurnFrame): string =>
  JSON.stringify([
    f.projection,
    f.signals.readyPosture,
    f.signals.acceptingInput,
    f.signals.chatContext,
  ]);

/** What the stale-active window watches: any change of it restarts the window. */
const staleSignature = (f: TurnFrame): string => JSON.stringify([f.projection, f.signals]);

const idlePhaseOf = (f: TurnFrame): 'ready' | 'unknown' =>
  f.signals.readyPosture === 'yes' && !f.signals.ambiguous ? 'ready' : 'unknown';

const guard =
  (rule: (context: TurnPhaseContext, f: TurnFrame) => boolean) =>
  ({ context, event }: Ctx): boolean =>
    rule(context, frameOf(event));

/** The seed event that moves the phase from `from` to `to` (none when already there). */
const PHASE_EVENT = {
  unknown: { ready: 'evt_ready_posture', active: 'evt_turn_started', unknown: null },
  ready: { active: 'evt_turn_started', unknown: 'evt_posture_lost', ready: null },
  active: { ready: 'evt_turn_finished', unknown: 'evt_posture_lost', active: null },
} as const;

type Phase = keyof typeof PHASE_EVENT;

/** Which phase each phase action moves to. */
const PHASE_PICK = {
  unknown: () => 'unknown',
  ready: () => 'ready',
  active: () => 'active',
  /** Ready when the screen is an idle prompt (ready posture, not ambiguous), else unknown. */
  idle: ({ event }) => idlePhaseOf(frameOf(event)),
  /** Active while a turn is open, else the idle phase. */
  default: ({ context, event }) => (context.current ? 'active' : idlePhaseOf(frameOf(event))),
  /** After a settled success: ready if the last frame had the ready posture. */
  settled: ({ context }) => (context.lastReadyPosture === 'yes' ? 'ready' : 'unknown'),
} satisfies Record<string, (args: Ctx) => Phase>;

function outcomeOf(name: OutcomeEvent, rule: string, { context, event }: Ctx): TurnPhaseEmitted {
  const turn = context.current!;
  return {
    type: 'outcome',
    outcome: name,
    turnId: turn.id,
    source: turn.source,
    startedAt: turn.startedAt,
    at: 't' in event ? event.t : 0,
    rule,
  };
}

/**
 * Turn phase: between turns (`ready`), in one (`active`), or cannot tell (`unknown`). Each
 * `frame` runs the tracker's priority chain of statecharts.md §5, first match wins, as the
 * guarded transitions below; their actions report each turn's outcome (for the last-turn
 * chart), keep the settle window, and move the phase with the chart's own events. A turn
 * counts an outcome only once it has evidence of its own (activity, or a changed transcript
 * since it was armed), and an interrupt or failure marker only if it is its own (not the one
 * on screen when it was armed, unless that went away and came back), so what the screen still
 * shows of an earlier turn is never reported again. Every turn, submitted through paneward (`turn_armed`) or inferred from the screen, is
 * its own turn with its own id. The settle window is a driver timer (`settle_window.*`
 * emitted; `settle_window_elapsed` back); reading the screen is the profiles' job.
 */
export const turnPhaseMachine = setup({
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
        f.projection !== c.settled.projection &&
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
    /** On `settle_window_elapsed` with a turn open, before the turn ends. */
    remember_settled: assign(({ context, event }) => ({
      settled: {
        turn: context.current!,
        // Stryker disable next-line LogicalOperator,StringLiteral: a settle window is only started by a frame, which sets lastProjection, so it is never null here
        projection: context.lastProjection ?? '',
        at: (event as Extract<TurnPhaseEvent, { type: 'settle_window_elapsed' }>).t,
      },
    })),
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
            projectionAtArm: settled.projection,
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
    /** Moves the phase with the chart's own event (statecharts.md §4); `to` names the rule. */
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
}).createMachine({
  id: 'turnPhase',
  initial: 'unknown',
  entry: 'resume_restored_turn',
  context: ({ input }) => ({
    settleSeconds: input?.settleSeconds ?? 1,
    staleActiveSeconds:
      input?.staleActiveSeconds ?? (input?.settleSeconds ?? 1) + STALE_ACTIVE_MARGIN_SECONDS,
    retractSeconds: input?.retractSeconds ?? RETRACT_SECONDS,
    current: input?.openTurn?.turn ?? null,
    evidence: input?.openTurn
      ? {
          projectionAtArm: null,
          sawActive: input.openTurn.hadEvidence,
          projectionChanged: false,
          markerAtArm: null,
          markerChanged: false,
        }
      : null,
    settling: null,
    staleSince: null,
    settled: null,
    handPrompt: null,
    lastProjection: null,
    // Stryker disable next-line StringLiteral: only ever compared with 'yes', like any other value before the first frame
    lastReadyPosture: 'unknown',
    // Stryker disable next-line StringLiteral: only ever compared with 'yes', like any other value before the first frame
    lastEditing: 'unknown',
    lastMarker: null,
  }),
  on: {
    frame: [
      {
        guard: 'diagnostics_degraded',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'unknown' } },
        ],
      },
      {
        guard: 'settled_reply_rewritten',
        actions: [
          { type: 'retract_settled_success', params: { by: 'rewritten' } },
          'reclassify_frame',
        ],
      },
      // The settled success's own turn shows an interrupt or failure marker after all.
      {
        guard: 'settled_success_disproved',
        actions: [
          { type: 'retract_settled_success', params: { by: 'marker' } },
          'reclassify_frame',
        ],
      },
      { guard: 'hand_prompt_outcome', actions: ['infer_turn', 'reclassify_frame'] },
      // (a) a draft over an old interrupted/failure marker: the marker is stale.
      {
        guard: 'stale_marker_under_draft',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'idle' } },
        ],
      },
      // A turn just armed whose screen has not moved yet: what is on screen is the last turn's.
      {
        guard: 'turn_without_evidence',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'active' } },
        ],
      },
      // (b) interrupted, or withdrawn before any reply.
      {
        guard: 'turn_interrupted',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          'report_interrupted',
          'end_turn',
          { type: 'enter_phase', params: { to: 'ready' } },
        ],
      },
      {
        guard: 'turn_withdrawn',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          'report_withdrawn',
          'end_turn',
          { type: 'enter_phase', params: { to: 'ready' } },
        ],
      },
      // (c) a failure the tool reports.
      {
        guard: 'turn_failed',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          'report_known_failure',
          'end_turn',
          { type: 'enter_phase', params: { to: 'ready' } },
        ],
      },
      {
        guard: 'outcome_marker_without_turn',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'ready' } },
        ],
      },
      // (d) active evidence: a turn runs (inferred when none is open).
      {
        guard: 'active_evidence',
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'infer_turn',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'active' } },
        ],
      },
      // (e) a success candidate settles, unless the user is typing over it.
      {
        guard: 'success_candidate_under_draft',
        actions: ['cancel_settle_window', 'cancel_stale_window', 'remember_frame'],
      },
      {
        guard: 'success_candidate',
        actions: ['cancel_stale_window', 'remember_frame', 'start_settle_window'],
      },
      // (f) default. An open turn at an idle prompt arms the stale-active window: unchanged
      // and with no activity for that long, the turn ends with no outcome.
      {
        guard: 'idle_prompt_under_turn',
        actions: [
          'cancel_settle_window',
          'remember_frame',
          'start_stale_window',
          { type: 'enter_phase', params: { to: 'default' } },
        ],
      },
      {
        actions: [
          'cancel_settle_window',
          'cancel_stale_window',
          'remember_frame',
          { type: 'enter_phase', params: { to: 'default' } },
        ],
      },
    ],
    turn_armed: {
      actions: [
        'cancel_settle_window',
        'cancel_stale_window',
        'arm_explicit_turn',
        { type: 'enter_phase', params: { to: 'active' } },
      ],
    },
    settle_window_elapsed: [
      {
        guard: 'turn_open',
        actions: [
          'settle_window_done',
          'report_success',
          'remember_settled',
          'end_turn',
          { type: 'enter_phase', params: { to: 'settled' } },
        ],
      },
      { actions: 'settle_window_done' },
    ],
    stale_active_elapsed: [
      {
        guard: 'stale_active_recovery',
        actions: [
          'stale_window_done',
          'report_stale_active',
          'end_turn',
          { type: 'enter_phase', params: { to: 'ready' } },
        ],
      },
      { actions: 'stale_window_done' },
    ],
  },
  states: {
    unknown: {
      on: {
        evt_ready_posture: { target: 'ready' },
        evt_turn_started: { target: 'active' },
      },
    },
    ready: {
      on: {
        evt_turn_started: { target: 'active' },
        evt_posture_lost: { target: 'unknown' },
      },
    },
    active: {
      on: {
        evt_turn_finished: { target: 'ready' },
        evt_posture_lost: { target: 'unknown' },
      },
    },
  },
});

/**
 * The hand-typed prompt pending after this frame: a draft that left the input box while the
 * transcript changed starts one; a new draft drops it; otherwise it stays.
 */
function handPromptAfter(
  c: TurnPhaseContext,
  f: TurnFrame,
): {
  at: number;
  projectionBefore: string;
  markerBefore: string | null;
} | null {
  if (f.signals.editingInput === 'yes') return null;
  if (
    c.lastEditing === 'yes' &&
    // Stryker disable next-line ConditionalExpression: the frame that set lastEditing set lastProjection too, so it is never null when lastEditing is 'yes'
    c.lastProjection !== null &&
    f.projection !== c.lastProjection
  ) {
    return (
      c.handPrompt ?? {
        at: f.t,
        projectionBefore: c.lastProjection,
        markerBefore: c.lastMarker,
      }
    );
  }
  return c.handPrompt;
}

export type TurnPhaseState = 'unknown' | 'ready' | 'active';
