import type { HookTurnEvent } from '../hooks/events.js';
import type { RecordedEnding, RecordEvent } from '../profiles/session-record.js';

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
  endings?: readonly RecordedEnding['reason'][];
  /**
   * The endings the CLI's hooks can tell (none when absent: the tool has no hooks). The same
   * rule: an ending the hooks cannot tell is left to the screen and the record.
   */
  hookEndings?: readonly RecordedEnding['reason'][];
}

/** Whether a witness beside the screen can tell this ending. */
export function markerTells(
  config: WitnessConfig,
  by: MarkerSource,
  reason: RecordedEnding['reason'],
): boolean {
  if (by === 'hook') return config.hookEndings?.includes(reason) ?? false;
  // An observer's turn is never open: it is a witness only once it ended the turn, so it is
  // never waited for, and what it said is what it can tell.
  if (by === 'observer') return true;
  return config.endings === undefined || config.endings.includes(reason);
}

/** Whether a witness's record can tell this ending. */
export function recordTells(config: WitnessConfig, reason: RecordedEnding['reason']): boolean {
  return markerTells(config, 'record', reason);
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
  ending: RecordedEnding | null;
  /**
   * Evidence of the ending: the record's file, offset and event name, or the hook's event name
   * (never any text).
   */
  endedBy: MarkerEvidence | null;
  /** When the ending was written, observation seconds (record endings only). */
  endedAt?: number;
}

/** Folds one record event into the record's latest turn. */
export function foldRecordEvent(
  turn: RecordTurn | null,
  event: RecordEvent,
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
export function foldHookEvent(
  turn: RecordTurn | null,
  event: HookTurnEvent,
  at: number,
): RecordTurn {
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
 * What a completion observer told (docs/witness.md): the turn it ended (by id: an observer
 * watches one turn at a time), its own name, and the ending. Never any text.
 */
export interface ObserverEnding {
  turnId: string;
  observer: string;
  ending: RecordedEnding;
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
  ending: RecordedEnding,
): 'evt_success_settled' | 'evt_interrupted' | 'evt_known_failure' {
  return ending.reason === 'success'
    ? 'evt_success_settled'
    : ending.reason === 'interrupted'
      ? 'evt_interrupted'
      : 'evt_known_failure';
}
