/**
 * The seed diagrams of statecharts.md, transcribed as data: the oracle of the generated path
 * tests (test/model/), which build their test models from it and never from machines/. The
 * machines must contain every seed edge, and every other edge they have must be listed as an
 * extension here (checked by test/machines/seed-conformance.test.ts; drawn distinctly in
 * visualizations/). This file imports nothing so that it stays a plain transcription of the
 * document.
 */

/** One transition of a chart. `event: null` is an eventless (`always`) transition. */
export interface SeedEdge {
  readonly from: string;
  readonly event: string | null;
  readonly to: string;
  /** Named guard; required for eventless edges. */
  readonly guard?: string;
}

/** A chart that has a seed diagram in statecharts.md. */
export interface SeedChart {
  readonly kind: 'seed';
  readonly id: string;
  /** Section of statecharts.md the chart is transcribed from. */
  readonly section: string;
  readonly states: readonly string[];
  readonly initial: string;
  /** Every event name the section uses for this chart. */
  readonly events: readonly string[];
  /** Edges of the seed diagram, exactly as listed. */
  readonly seed: readonly SeedEdge[];
  /** Edges the section adds on top of the seed diagram. */
  readonly extensions: readonly SeedEdge[];
  /** States the section says the chart ends in. */
  readonly finals?: readonly string[];
}

/**
 * A chart described only in prose (no seed diagram): its states and events, and the few edges
 * the prose names explicitly. Other edges of the machine are not constrained by it.
 */
export interface ProseChart {
  readonly kind: 'prose';
  readonly id: string;
  readonly section: string;
  readonly states: readonly string[];
  readonly events: readonly string[];
  /** Edges the prose states explicitly. */
  readonly stated: readonly SeedEdge[];
}

export type Chart = SeedChart | ProseChart;

/** statecharts.md §1. */
export const readinessSeed: SeedChart = {
  kind: 'seed',
  id: 'readiness',
  section: '§1 Readiness',
  states: ['waiting', 'unknown', 'stalled', 'ready', 'blocked', 'failed'],
  initial: 'waiting',
  events: [
    'evt_submit_ready',
    'evt_known_nonready',
    'evt_operator_blocked',
    'evt_surface_unsupported_or_disconnected',
    'evt_unknown_for_stall',
    'evt_unknown_timeout',
    'evt_stalled_recovered_to_waiting',
    'evt_stalled_recovered_to_submit_ready',
    'evt_stalled_recovered_to_blocked',
  ],
  seed: [
    { from: 'waiting', event: 'evt_submit_ready', to: 'ready' },
    { from: 'waiting', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'waiting', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'waiting', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'unknown', event: 'evt_known_nonready', to: 'waiting' },
    { from: 'unknown', event: 'evt_submit_ready', to: 'ready' },
    { from: 'unknown', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'unknown', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'unknown', event: 'evt_unknown_timeout', to: 'stalled' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_waiting', to: 'waiting' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_submit_ready', to: 'ready' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_blocked', to: 'blocked' },
    { from: 'stalled', event: null, to: 'failed', guard: 'stalled_is_terminal' },
  ],
  extensions: [
    // ready, blocked and failed follow every classification event (self-targets are no-ops).
    { from: 'ready', event: 'evt_known_nonready', to: 'waiting' },
    { from: 'ready', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'ready', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'ready', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'blocked', event: 'evt_submit_ready', to: 'ready' },
    { from: 'blocked', event: 'evt_known_nonready', to: 'waiting' },
    { from: 'blocked', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'blocked', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'failed', event: 'evt_submit_ready', to: 'ready' },
    { from: 'failed', event: 'evt_known_nonready', to: 'waiting' },
    { from: 'failed', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'failed', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'stalled', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
  ],
};

/** statecharts.md §2. */
export const completionSeed: SeedChart = {
  kind: 'seed',
  id: 'completion',
  section: '§2 Completion',
  states: [
    'waiting',
    'in_progress',
    'candidate_complete',
    'unknown',
    'stalled',
    'completed',
    'blocked',
    'failed',
  ],
  initial: 'waiting',
  events: [
    'evt_working_seen',
    'evt_submit_ready_with_activity',
    'evt_known_noncandidate',
    'evt_operator_blocked',
    'evt_surface_unsupported_or_disconnected',
    'evt_unknown_for_stall',
    'evt_unknown_timeout',
    'evt_stability_window_elapsed',
    'evt_completion_observer_payload',
    'evt_state_signature_changed',
    'evt_stalled_recovered_to_waiting',
    'evt_stalled_recovered_to_working',
    'evt_stalled_recovered_to_candidate',
    'evt_stalled_recovered_to_blocked',
  ],
  seed: [
    { from: 'waiting', event: 'evt_working_seen', to: 'in_progress' },
    { from: 'waiting', event: 'evt_submit_ready_with_activity', to: 'candidate_complete' },
    { from: 'waiting', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'waiting', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'waiting', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'in_progress', event: 'evt_submit_ready_with_activity', to: 'candidate_complete' },
    { from: 'in_progress', event: 'evt_known_noncandidate', to: 'waiting' },
    { from: 'in_progress', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'in_progress', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'in_progress', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'candidate_complete', event: 'evt_stability_window_elapsed', to: 'completed' },
    { from: 'candidate_complete', event: 'evt_completion_observer_payload', to: 'completed' },
    { from: 'candidate_complete', event: 'evt_working_seen', to: 'in_progress' },
    { from: 'candidate_complete', event: 'evt_state_signature_changed', to: 'waiting' },
    { from: 'candidate_complete', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'candidate_complete', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'candidate_complete', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'unknown', event: 'evt_known_noncandidate', to: 'waiting' },
    { from: 'unknown', event: 'evt_stalled_recovered_to_working', to: 'in_progress' },
    { from: 'unknown', event: 'evt_stalled_recovered_to_candidate', to: 'candidate_complete' },
    { from: 'unknown', event: 'evt_operator_blocked', to: 'blocked' },
    { from: 'unknown', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'unknown', event: 'evt_unknown_timeout', to: 'stalled' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_waiting', to: 'waiting' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_working', to: 'in_progress' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_candidate', to: 'candidate_complete' },
    { from: 'stalled', event: 'evt_stalled_recovered_to_blocked', to: 'blocked' },
    { from: 'stalled', event: null, to: 'failed', guard: 'stalled_is_terminal' },
  ],
  extensions: [
    // blocked is recoverable: an operator answers the prompt.
    { from: 'blocked', event: 'evt_working_seen', to: 'in_progress' },
    { from: 'blocked', event: 'evt_submit_ready_with_activity', to: 'candidate_complete' },
    { from: 'blocked', event: 'evt_known_noncandidate', to: 'waiting' },
    { from: 'blocked', event: 'evt_unknown_for_stall', to: 'unknown' },
    { from: 'blocked', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
    { from: 'stalled', event: 'evt_surface_unsupported_or_disconnected', to: 'failed' },
  ],
  // "it ends in `completed` or `failed`"
  finals: ['completed', 'failed'],
};

/** statecharts.md §4 (the event names are the document's own; the seeds give guards in words). */
export const turnPhaseSeed: SeedChart = {
  kind: 'seed',
  id: 'turnPhase',
  section: '§4 Turn phase',
  states: ['unknown', 'ready', 'active'],
  initial: 'unknown',
  events: ['evt_ready_posture', 'evt_turn_started', 'evt_turn_finished', 'evt_posture_lost'],
  seed: [
    { from: 'unknown', event: 'evt_ready_posture', to: 'ready' },
    { from: 'unknown', event: 'evt_turn_started', to: 'active' },
    { from: 'ready', event: 'evt_turn_started', to: 'active' },
    { from: 'ready', event: 'evt_posture_lost', to: 'unknown' },
    { from: 'active', event: 'evt_turn_finished', to: 'ready' },
    { from: 'active', event: 'evt_posture_lost', to: 'unknown' },
  ],
  extensions: [],
};

/**
 * The guard of `active --evt_turn_finished--> ready` in the seed diagram, alternative by
 * alternative: "success settled + ready posture, OR interrupted/failure + ready surface, OR host
 * active recovery" (a withdrawn turn is an interrupt the screen shows by handing the prompt
 * back). The generated turn-phase paths finish each turn by each of them in turn.
 */
export const turnFinishedWays = [
  'success_settled',
  'interrupted',
  'failure',
  'withdrawn',
  'host_active_recovery',
] as const;
export type TurnFinishedWay = (typeof turnFinishedWays)[number];

/** statecharts.md §5: none → each outcome, each outcome → each outcome (self included), retraction. */
export const lastTurnSeed: SeedChart = {
  kind: 'seed',
  id: 'lastTurn',
  section: '§5 Last-turn result',
  states: ['none', 'success', 'interrupted', 'known_failure'],
  initial: 'none',
  events: ['evt_success_settled', 'evt_interrupted', 'evt_known_failure', 'evt_success_retracted'],
  seed: [
    { from: 'none', event: 'evt_success_settled', to: 'success' },
    { from: 'none', event: 'evt_interrupted', to: 'interrupted' },
    { from: 'none', event: 'evt_known_failure', to: 'known_failure' },
    { from: 'success', event: 'evt_success_settled', to: 'success' },
    { from: 'success', event: 'evt_interrupted', to: 'interrupted' },
    { from: 'success', event: 'evt_known_failure', to: 'known_failure' },
    { from: 'interrupted', event: 'evt_success_settled', to: 'success' },
    { from: 'interrupted', event: 'evt_interrupted', to: 'interrupted' },
    { from: 'interrupted', event: 'evt_known_failure', to: 'known_failure' },
    { from: 'known_failure', event: 'evt_success_settled', to: 'success' },
    { from: 'known_failure', event: 'evt_interrupted', to: 'interrupted' },
    { from: 'known_failure', event: 'evt_known_failure', to: 'known_failure' },
    { from: 'success', event: 'evt_success_retracted', to: 'none' },
  ],
  extensions: [],
};

/** statecharts.md §6. */
export const diagnosticsSeed: SeedChart = {
  kind: 'seed',
  id: 'diagnostics',
  section: '§6 Diagnostics availability',
  states: ['unknown', 'available', 'unavailable', 'tui_down', 'error'],
  initial: 'unknown',
  events: [
    'evt_probe_available',
    'evt_probe_unavailable',
    'evt_probe_tui_down',
    'evt_probe_error',
    'evt_probe_unknown',
  ],
  seed: [
    { from: 'unknown', event: 'evt_probe_available', to: 'available' },
    { from: 'unknown', event: 'evt_probe_unavailable', to: 'unavailable' },
    { from: 'unknown', event: 'evt_probe_tui_down', to: 'tui_down' },
    { from: 'unknown', event: 'evt_probe_error', to: 'error' },
    { from: 'available', event: 'evt_probe_tui_down', to: 'tui_down' },
    { from: 'available', event: 'evt_probe_unavailable', to: 'unavailable' },
    { from: 'available', event: 'evt_probe_error', to: 'error' },
    { from: 'tui_down', event: 'evt_probe_available', to: 'available' },
    { from: 'tui_down', event: 'evt_probe_unavailable', to: 'unavailable' },
    { from: 'tui_down', event: 'evt_probe_error', to: 'error' },
    // The tmux session reappears: any probe that is neither unavailable nor error.
    { from: 'unavailable', event: 'evt_probe_available', to: 'unknown' },
    { from: 'unavailable', event: 'evt_probe_tui_down', to: 'unknown' },
    { from: 'unavailable', event: 'evt_probe_unknown', to: 'unknown' },
    { from: 'unavailable', event: 'evt_probe_error', to: 'error' },
    { from: 'error', event: 'evt_probe_available', to: 'available' },
    { from: 'error', event: 'evt_probe_unavailable', to: 'unavailable' },
    { from: 'error', event: 'evt_probe_tui_down', to: 'tui_down' },
    // Partial recovery.
    { from: 'error', event: 'evt_probe_unknown', to: 'unknown' },
  ],
  extensions: [],
};

/**
 * statecharts.md §7 has no seed diagram: it names the states and events and states one edge
 * (a resume re-arms a fired watchdog with a fresh window). The initial state is not stated.
 */
export const watchdogSpec: ProseChart = {
  kind: 'prose',
  id: 'watchdog',
  section: '§7 Watchdog',
  states: ['disabled', 'armed', 'fired', 'finished'],
  events: [
    'evt_session_started',
    'evt_wall_clock_exceeded',
    'evt_session_finished',
    'evt_session_resumed',
  ],
  stated: [{ from: 'fired', event: 'evt_session_resumed', to: 'armed' }],
};

/** Every chart of statecharts.md that a machine in this folder implements. */
export const charts: readonly Chart[] = [
  readinessSeed,
  completionSeed,
  turnPhaseSeed,
  lastTurnSeed,
  diagnosticsSeed,
  watchdogSpec,
];
