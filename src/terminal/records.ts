import type { WatchdogCancelRequest } from '../kernel/watchdog-driver.js';
import { isNewerThanVerified } from '../profiles/internal/define.js';
import type { ToolProfile } from '../profiles/types.js';
import type { AnomalyRecord } from '../schemas/kernel.js';
import type { RecordDraft } from '../schemas/record.js';
import type { TurnLifecycle } from './turn-driver.js';

/** A stall anomaly of the kernel's charts, as a journal record. */
export function kernelAnomalyRecord(
  terminalId: string,
  r: AnomalyRecord,
  parserFamily: string,
): RecordDraft {
  return {
    kind: 'anomaly',
    terminalId,
    anomaly: r.anomaly,
    phase: r.phase,
    t: r.t,
    ...('elapsedUnknownSeconds' in r ? { elapsedUnknownSeconds: r.elapsedUnknownSeconds } : {}),
    ...('elapsedStalledSeconds' in r ? { elapsedStalledSeconds: r.elapsedStalledSeconds } : {}),
    ...('recoveredTo' in r ? { recoveredTo: r.recoveredTo } : {}),
    parserFamily,
  };
}

/** A turn's start, reopening or end, as a journal record. */
export function turnRecord(terminalId: string, ev: TurnLifecycle): RecordDraft {
  if (ev.kind === 'turn.started') {
    return {
      kind: 'turn.started',
      terminalId,
      turnId: ev.turn.id,
      source: ev.turn.source,
      startedAt: ev.turn.startedAt,
    };
  }
  if (ev.kind === 'turn.reopened') {
    return {
      kind: 'turn.reopened',
      terminalId,
      turnId: ev.turn.id,
      source: ev.turn.source,
      startedAt: ev.turn.startedAt,
      t: ev.t,
    };
  }
  return {
    kind: 'turn.ended',
    terminalId,
    turnId: ev.turnId,
    source: ev.source,
    outcome: ev.outcome,
    t: ev.t,
    ...(ev.witness ? { witness: ev.witness } : {}),
    ...(ev.record ? { record: ev.record } : {}),
    ...(ev.hook ? { hook: ev.hook } : {}),
    ...(ev.observer ? { observer: ev.observer } : {}),
  };
}

/** The watchdog's chart cancelled the session; times are observation seconds after `originMs`. */
export function watchdogCancelRecord(
  terminalId: string,
  req: WatchdogCancelRequest,
  originMs: number,
): RecordDraft {
  const iso = (s: number) => new Date(s * 1000 + originMs).toISOString();
  return {
    kind: 'watchdog.cancel',
    terminalId,
    aggregateType: 'runtime_control',
    aggregateId: terminalId,
    eventKind: 'runtime.watchdog.cancel',
    reason: 'wall_clock_exceeded',
    sessionStartedAt: iso(req.sessionStartedAt),
    firedAt: iso(req.firedAt),
    elapsedSeconds: Math.round(req.firedAt - req.sessionStartedAt),
    configuredBudgetSeconds: Math.round(req.budgetSeconds),
  };
}

/** A watchdog window opened (`started`) or opened again after it fired (`resumed`). */
export function watchdogWindowRecord(
  terminalId: string,
  reason: 'started' | 'resumed',
  sessionStartedAt: number,
  budgetSeconds: number,
): RecordDraft {
  return { kind: 'watchdog.window', terminalId, reason, sessionStartedAt, budgetSeconds };
}

/** A CLI version `profile` was not verified against. */
export function unverifiedVersionRecord(
  terminalId: string,
  t: number,
  profile: ToolProfile,
  version: string,
  source: 'attach' | 'process',
): RecordDraft {
  const verified = profile.verified ?? [];
  return {
    kind: 'anomaly',
    terminalId,
    anomaly: 'version_unverified',
    t,
    tool: profile.id,
    toolVersion: version,
    verifiedVersions: [...verified],
    newer: isNewerThanVerified(verified, version),
    screensRead: profile.unverifiedUnread ? 'unrecognised' : 'nearest_vocabulary',
    source,
  };
}

/** A run of frames that matched no shape the profile knows. */
export interface UnrecognisedRun {
  frames: number;
  firstT: number;
  hash: string;
}

/** While frames go on matching no known shape, one anomaly record per this many seconds. */
const UNRECOGNISED_RECORD_SECONDS = 60;

/** Counts unrecognised frames between their records: the first of a run at once, the rest at most once a minute. */
export class UnrecognisedScreens {
  private run: UnrecognisedRun | null = null;
  /** When the last run was taken for a record. */
  private recordedAt = -Infinity;

  /** Counts one unrecognised frame; true when its run is due for a record now. */
  note(t: number, hash: string): boolean {
    const u = (this.run ??= { frames: 0, firstT: t, hash });
    u.frames += 1;
    u.hash = hash;
    return t - this.recordedAt >= UNRECOGNISED_RECORD_SECONDS;
  }

  /** The frames not yet recorded (null: none), to be recorded at `t`. */
  take(t: number): UnrecognisedRun | null {
    const u = this.run;
    if (!u) return null;
    this.run = null;
    this.recordedAt = t;
    return u;
  }
}

export function unrecognisedRecord(
  terminalId: string,
  t: number,
  profile: ToolProfile,
  toolVersion: string | undefined,
  u: UnrecognisedRun,
): RecordDraft {
  return {
    kind: 'anomaly',
    terminalId,
    anomaly: 'unrecognised_screen',
    t,
    tool: profile.id,
    toolVersion: toolVersion ?? null,
    frames: u.frames,
    firstT: u.firstT,
    screenHash: u.hash,
  };
}
