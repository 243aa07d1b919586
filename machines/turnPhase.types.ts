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
  /**
   * A success candidate's settle window ran out; `witnessed`: the session record, a hook or an
   * observer said the turn ended with a success too (the witness chart's verdict).
   */
  | { type: 'settle_window_elapsed'; t: number; witnessed?: true }
  | { type: 'stale_active_elapsed'; t: number }
  /**
   * The completion witness decided the open turn's outcome from the CLI's session record
   * (docs/witness.md): the record alone (`markers`), or the record winning a disagreement that
   * lasted longer than its window (`both`).
   */
  | {
      type: 'record_outcome';
      t: number;
      outcome: 'evt_success_settled' | 'evt_interrupted' | 'evt_known_failure';
    }
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
  /**
   * The projection when the turn was armed, while no frame since showed another; null: the
   * projection changed (then `printAtArm` stands for it), or take the next frame's (a restored
   * turn, which has no print either).
   */
  projectionAtArm: string | null;
  /**
   * The {@link screenPrint} of the projection when the turn was armed, once the text is let go
   * (the projection changed, or a settled success was reopened): a turn is not made to keep a
   * screen it no longer shows, only what tells it again. Null while the text is kept.
   */
  printAtArm: string | null;
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
  settled: {
    turn: TurnInfo;
    /** {@link screenPrint} of its projection. */ print: string;
    at: number;
  } | null;
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

export type TurnPhaseState = 'unknown' | 'ready' | 'active';
