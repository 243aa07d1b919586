import { turnPhaseRules } from './turnPhase.rules.js';
import { RETRACT_SECONDS, STALE_ACTIVE_MARGIN_SECONDS } from './turnPhase.types.js';

export * from './turnPhase.types.js';

/**
 * Turn phase: between turns (`ready`), in one (`active`), or cannot tell (`unknown`). Each
 * `frame` runs the tracker's priority chain of docs/statecharts.md §5, first match wins, as the
 * guarded transitions below; their actions report each turn's outcome (for the last-turn
 * chart), keep the settle window, and move the phase with the chart's own events. A turn
 * counts an outcome only once it has evidence of its own (activity, or a changed transcript
 * since it was armed), and an interrupt or failure marker only if it is its own (not the one
 * on screen when it was armed, unless that went away and came back), so what the screen still
 * shows of an earlier turn is never reported again. Every turn, submitted through paneward (`turn_armed`) or inferred from the screen, is
 * its own turn with its own id. The settle window is a driver timer (`settle_window.*`
 * emitted; `settle_window_elapsed` back); reading the screen is the profiles' job.
 */
export const turnPhaseMachine = turnPhaseRules.createMachine({
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
          printAtArm: null,
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
    // The session record decided the open turn's outcome (docs/witness.md).
    record_outcome: {
      guard: 'turn_open',
      actions: [
        'cancel_settle_window',
        'cancel_stale_window',
        'report_record_outcome',
        'end_turn',
        { type: 'enter_phase', params: { to: 'ready' } },
      ],
    },
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
