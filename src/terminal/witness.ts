import type { RecordedEnding, RecordEvent } from '../profiles/session-record.js';

/**
 * Who decides a turn's outcome (docs/witness.md): the screen alone (`surface`), the CLI's
 * session record (`markers`: the screen still decides readiness and blocked prompts), or the two
 * together (`both`: an outcome needs them to agree; when they disagree for longer than the
 * window, the record wins).
 */
export type CompletionAuthority = 'surface' | 'markers' | 'both';

/** Which witness decided an outcome: the screen, the session record, or both agreeing. */
export type OutcomeWitness = 'surface' | 'record' | 'both';

/** How a terminal's completion witness is set up. */
export interface WitnessConfig {
  authority: CompletionAuthority;
  /** How long the screen and the record may disagree before the record wins, seconds. */
  windowSeconds: number;
  /**
   * The endings the record can tell (all three when absent). An ending it cannot tell is the
   * screen's alone: the record's silence about it is no disagreement, and nothing waits for it.
   */
  endings?: readonly RecordedEnding['reason'][];
}

/** Whether a witness's record can tell this ending. */
export function recordTells(config: WitnessConfig, reason: RecordedEnding['reason']): boolean {
  return config.endings === undefined || config.endings.includes(reason);
}

export const DEFAULT_WITNESS_WINDOW_SECONDS = 3;

/**
 * A record turn started this long (seconds) before the pane's turn was armed still counts as
 * that turn's: the CLI writes the prompt as it takes it, a poll before paneward arms the turn.
 */
export const RECORD_TURN_SLACK_SECONDS = 2;

/** The record's latest turn, as the session record tells it. */
export interface RecordTurn {
  /** When it started, observation seconds (the record's own time, or when it was read). */
  startedAt: number;
  ending: RecordedEnding | null;
  /** Evidence of the ending: the record's file, offset and event name (never its text). */
  endedBy: { file: string; offset: number; event: string } | null;
}

/** Folds one record event into the record's latest turn. */
export function foldRecordEvent(
  turn: RecordTurn | null,
  event: RecordEvent,
  readAt: number,
): RecordTurn {
  const at = event.atMs !== undefined ? event.atMs / 1000 : readAt;
  if (event.type === 'turn_started') return { startedAt: at, ending: null, endedBy: null };
  return {
    startedAt: turn && turn.ending === null ? turn.startedAt : at,
    ending: event.ending,
    endedBy: { file: event.position.file, offset: event.position.offset, event: event.event },
  };
}

/** The chart event an ending stands for. */
export function outcomeEventOf(
  ending: RecordedEnding,
): 'evt_success_settled' | 'evt_interrupted' | 'evt_known_failure' {
  return ending.reason === 'success'
    ? 'evt_success_settled'
    : ending.reason === 'interrupted'
      ? 'evt_interrupted'
      : 'evt_known_failure';
}
