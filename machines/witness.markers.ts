import type { OutcomeEvent } from './turnPhase.types.js';
import { RECORD_TURN_SLACK_SECONDS } from './witness.types.js';
import type {
  HookPiece,
  MarkerEnding,
  MarkerEvidence,
  MarkerSource,
  ObserverEnding,
  RecordPiece,
  RecordTurn,
  WitnessConfig,
  WitnessContext,
  WitnessScreen,
} from './witness.types.js';

/** Whether a witness beside the screen can tell this ending. */
export function markerTells(
  config: WitnessConfig,
  by: MarkerSource,
  reason: MarkerEnding['reason'],
): boolean {
  if (by === 'hook') return config.hookEndings?.includes(reason) ?? false;
  // An observer's turn is never open: it is a witness only once it ended the turn, so it is
  // never waited for, and what it said is what it can tell.
  if (by === 'observer') return true;
  return config.endings === undefined || config.endings.includes(reason);
}

/** Whether a witness's record can tell this ending. */
export function recordTells(config: WitnessConfig, reason: MarkerEnding['reason']): boolean {
  return markerTells(config, 'record', reason);
}

/** The markers are weighed: the completion authority is `markers` or `both`. */
export const weighed = (c: WitnessContext): boolean =>
  !!c.config && c.config.authority !== 'surface';

/** Folds one record event into the record's latest turn. */
export function foldRecordEvent(
  turn: RecordTurn | null,
  event: RecordPiece,
  readAt: number,
): RecordTurn {
  const at = event.atMs !== undefined ? event.atMs / 1000 : readAt;
  if (event.type === 'turn_started') {
    if (turn && event.atMs !== undefined) {
      const { ending, endedBy, endedAt } = turn;
      // A side record's ending read before the prompt it ends, the ending having begun the
      // turn (Cline writes the prompt into its messages only as the run ends, and its log says
      // `aborted` at once): the prompt is that turn's start.
      if (
        ending &&
        endedBy &&
        'file' in endedBy &&
        endedBy.file !== event.position.file &&
        endedAt !== undefined &&
        turn.startedAt === endedAt &&
        at <= endedAt
      ) {
        return { ...turn, startedAt: at };
      }
      // A start written before the latest turn's (or before its ending) is that turn's own or
      // an earlier one's, read late from a second file (a side record read from its start, or
      // a prompt written only as its run ends): it starts nothing.
      if (ending ? endedAt !== undefined && at < endedAt : at < turn.startedAt) return turn;
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
export function foldHookEvent(turn: RecordTurn | null, event: HookPiece, at: number): RecordTurn {
  if (event.type === 'turn_started')
    return { by: 'hook', startedAt: at, ending: null, endedBy: null };
  return {
    by: 'hook',
    startedAt: turn && turn.ending === null ? turn.startedAt : at,
    ending: event.ending,
    endedBy: { hook: event.event },
    endedAt: at,
  };
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
  ending: MarkerEnding,
): Exclude<OutcomeEvent, 'evt_success_retracted'> {
  return ending.reason === 'success'
    ? 'evt_success_settled'
    : ending.reason === 'interrupted'
      ? 'evt_interrupted'
      : 'evt_known_failure';
}

/** Each marker witness's latest turn that is the turn started at `startedAt`. */
export function markersOf(c: WitnessContext, startedAt: number): RecordTurn[] {
  const all = [c.recordLive ? c.markers.record : null, c.markers.hook, c.markers.observer];
  // An observer names its turn, so its ending is that turn's exactly; the record and hooks are
  // matched by time: a start a little before the pane's turn may be its own, an ending written
  // before it is never (a prompt typed through paneward is armed before it is pasted; a turn
  // seen on screen is seen working before its run ends). Else a run that ended within the slack
  // of the next turn's start would be that next turn's outcome at once.
  return all.filter(
    (m): m is RecordTurn =>
      m !== null &&
      (m.by === 'observer'
        ? m.startedAt === startedAt
        : m.startedAt >= startedAt - RECORD_TURN_SLACK_SECONDS &&
          !(m.endedAt !== undefined && m.endedAt < startedAt)),
  );
}

/**
 * The marker witnesses' latest turn, when it is that of the turn started at `startedAt`: one
 * that ended it (the record's first), else one still open (one that can tell a success first,
 * so a screen success waits for it).
 */
export function recordOf(c: WitnessContext, startedAt: number): RecordTurn | null {
  const mine = markersOf(c, startedAt);
  const w = c.config;
  return (
    mine.find((m) => m.ending !== null) ??
    mine.find((m) => w !== null && markerTells(w, m.by, 'success')) ??
    mine[0] ??
    null
  );
}

/**
 * Whether a frame can change anything: only a marker's success can agree with the screen, so
 * with no marker turn at all under a weighing authority (or under `surface`) frames are not
 * told (the guards of `frame` would all fail).
 */
export function framesMatter(c: WitnessContext): boolean {
  return (
    weighed(c) &&
    (c.markers.record !== null || c.markers.hook !== null || c.markers.observer !== null)
  );
}

/**
 * The marker witnesses' evidence that the latest turn ended with a success, or null: the payload
 * of the kernel's completion observer (a candidate completes at once, docs/statecharts.md §2).
 */
export function successEvidence(c: WitnessContext, screen: WitnessScreen): MarkerEvidence | null {
  if (!c.config || c.config.authority === 'surface') return null;
  // The completion chart outlives the turn's outcome: the latest turn started, open or not.
  const startedAt = screen.turn?.startedAt ?? screen.lastStartedAt;
  const rec = startedAt === null ? null : recordOf(c, startedAt);
  return rec?.ending?.reason === 'success' ? rec.endedBy : null;
}

/** The evidence of each marker witness that ended the turn started at `startedAt` this way. */
export function evidenceOf(
  c: WitnessContext,
  reason: MarkerEnding['reason'],
  startedAt: number,
): {
  record?: { file: string; offset: number; event: string };
  hook?: { event: string };
  observer?: { name: string };
} {
  const out: ReturnType<typeof evidenceOf> = {};
  for (const m of markersOf(c, startedAt)) {
    const e = m.endedBy;
    if (m.ending?.reason !== reason || !e) continue;
    if ('hook' in e) out.hook = { event: e.hook };
    else if ('observer' in e) out.observer = { name: e.observer };
    else out.record = e;
  }
  return out;
}
