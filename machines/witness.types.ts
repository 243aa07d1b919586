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
  /** When the ending was written (a record's) or arrived (a hook's), observation seconds. */
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
  /**
   * The screen stood at its idle prompt for the stale-active window: the turn-phase chart is
   * about to end the turn with no outcome (docs/design.md, stale active recovery).
   */
  | { type: 'stale_elapsed'; t: number; screen: WitnessScreen }
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
        | { type: 'settle_window_elapsed'; witnessed?: true }
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
  /** The turn whose settled success is held (`holding`), by id. */
  held: string | null;
}

export interface WitnessInput {
  /** Completion authority; the screen alone when absent. */
  config?: WitnessConfig;
}
