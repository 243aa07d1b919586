/**
 * How each witness's word is folded into its latest turn, and which turn is the open turn's
 * (docs/witness.md: a record turn counts as this turn's when it started no earlier than 2 s
 * before the turn was armed and had not ended before it; a start or an ending written before the
 * latest turn's is an earlier turn's; a side record's ending may be read before the prompt that
 * began its turn).
 * Each case is the rule's, and its neighbour on the other side of the rule's line.
 */
import { describe, expect, it } from 'vitest';
import {
  evidenceOf,
  foldHookEvent,
  foldObserverEnding,
  foldRecordEvent,
  markersOf,
  markerTells,
  recordOf,
  recordTells,
  successEvidence,
  type RecordPiece,
  type RecordTurn,
  type WitnessConfig,
  type WitnessScreen,
} from '../../machines/witness.js';
import { BOTH, witnessContext } from './internal/witness-context.js';

const started = (file: string, atMs?: number): RecordPiece => ({
  type: 'turn_started',
  event: 'prompt',
  position: { file, offset: 0 },
  ...(atMs === undefined ? {} : { atMs }),
});
const ended = (file: string, reason: 'success' | 'interrupted', atMs?: number): RecordPiece => ({
  type: 'turn_ended',
  event: reason === 'success' ? 'done' : 'aborted',
  ending: { reason },
  position: { file, offset: 42 },
  ...(atMs === undefined ? {} : { atMs }),
});
const open = (startedAt: number): RecordTurn => ({
  by: 'record',
  startedAt,
  ending: null,
  endedBy: null,
});
const endedTurn = (startedAt: number, endedAt: number, file = 'log'): RecordTurn => ({
  by: 'record',
  startedAt,
  ending: { reason: 'interrupted' },
  endedBy: { file, offset: 7, event: 'aborted' },
  endedAt,
});

describe('a start folded into the record', () => {
  it('starts a turn at the record’s own time, or when it was read', () => {
    expect(foldRecordEvent(null, started('m'), 5)).toEqual(open(5));
    expect(foldRecordEvent(null, started('m', 4_000), 5)).toEqual(open(4));
  });

  it('a start written before the open turn’s own start is that turn’s, or an earlier one’s', () => {
    const turn = open(10);
    expect(foldRecordEvent(turn, started('m', 9_000), 12)).toBe(turn);
    // Written at the same moment: a turn of its own.
    expect(foldRecordEvent(turn, started('m', 10_000), 12)).not.toBe(turn);
    expect(foldRecordEvent(turn, started('m', 11_000), 12)).toEqual(open(11));
  });

  it('a start written before the latest turn’s ending starts nothing', () => {
    const turn = endedTurn(8, 10, 'messages');
    expect(foldRecordEvent(turn, started('messages', 9_000), 12)).toBe(turn);
    expect(foldRecordEvent(turn, started('messages', 10_000), 12)).toEqual(open(10));
    // With no time of its own it is read as now: the rules of written times do not apply.
    expect(foldRecordEvent(turn, started('messages'), 9)).toEqual(open(9));
    // An ending with no time written: nothing to compare with.
    const untimed: RecordTurn = { ...turn, endedAt: undefined };
    expect(foldRecordEvent(untimed, started('messages', 9_000), 12)).toEqual(open(9));
  });

  it('a side record’s ending that began its turn takes the prompt read after it as the start', () => {
    // The log said `aborted` (and so began the turn) before the messages file wrote the prompt.
    const aborted = endedTurn(10, 10, 'log');
    expect(foldRecordEvent(aborted, started('messages', 9_000), 12)).toEqual({
      ...aborted,
      startedAt: 9,
    });
    expect(foldRecordEvent(aborted, started('messages', 10_000), 12)).toEqual(aborted);
    expect(foldRecordEvent(aborted, started('messages', 10_000), 12)).not.toBe(aborted);
    // A prompt written after the ending is the next turn's.
    expect(foldRecordEvent(aborted, started('messages', 11_000), 12)).toEqual(open(11));
    // The same file wrote the start before its own ending: an earlier turn's.
    expect(foldRecordEvent(aborted, started('log', 9_000), 12)).toBe(aborted);
    // An ending that did not begin its turn: the start before it is the turn's own, read late.
    const later = endedTurn(8, 10, 'log');
    expect(foldRecordEvent(later, started('messages', 9_000), 12)).toBe(later);
    // A hook's ending is no record's file.
    const hooked: RecordTurn = { ...aborted, endedBy: { hook: 'Stop' } };
    expect(foldRecordEvent(hooked, started('messages', 9_000), 12)).toBe(hooked);
  });
});

describe('an ending folded into the record', () => {
  it('ends the open turn, keeping its start, with the line that ended it', () => {
    expect(foldRecordEvent(open(5), ended('m', 'success', 7_000), 8)).toEqual({
      by: 'record',
      startedAt: 5,
      ending: { reason: 'success' },
      endedBy: { file: 'm', offset: 42, event: 'done' },
      endedAt: 7,
    });
  });

  it('with no open turn it is a turn of its own, begun and ended at once', () => {
    expect(foldRecordEvent(null, ended('m', 'success'), 8)).toMatchObject({
      startedAt: 8,
      endedAt: 8,
    });
    expect(foldRecordEvent(endedTurn(1, 2), ended('m', 'success', 7_000), 8)).toMatchObject({
      startedAt: 7,
      endedAt: 7,
    });
  });

  it('an ending written before the latest turn started is an earlier turn’s', () => {
    const turn = open(10);
    expect(foldRecordEvent(turn, ended('log', 'interrupted', 9_000), 12)).toBe(turn);
    expect(foldRecordEvent(turn, ended('log', 'interrupted', 10_000), 12)).toMatchObject({
      startedAt: 10,
      ending: { reason: 'interrupted' },
    });
    // Read, not written, before: the time of reading is no evidence of an earlier turn.
    expect(foldRecordEvent(turn, ended('log', 'interrupted'), 9)).toMatchObject({
      startedAt: 10,
      ending: { reason: 'interrupted' },
    });
  });
});

describe('hooks and observers', () => {
  it('a hook’s start opens a turn; its ending ends the open one, or is a turn of its own', () => {
    expect(foldHookEvent(null, { type: 'turn_started', event: 'UserPromptSubmit' }, 3)).toEqual({
      by: 'hook',
      startedAt: 3,
      ending: null,
      endedBy: null,
    });
    const stop = {
      type: 'turn_ended' as const,
      event: 'Stop',
      ending: { reason: 'success' as const },
    };
    const openHook: RecordTurn = { by: 'hook', startedAt: 3, ending: null, endedBy: null };
    expect(foldHookEvent(openHook, stop, 6)).toEqual({
      by: 'hook',
      startedAt: 3,
      ending: { reason: 'success' },
      endedBy: { hook: 'Stop' },
      endedAt: 6,
    });
    expect(foldHookEvent({ ...openHook, ending: { reason: 'success' } }, stop, 6).startedAt).toBe(
      6,
    );
    expect(foldHookEvent(null, stop, 6).startedAt).toBe(6);
  });

  it('the first ending an observer tells for a turn stands', () => {
    const first = foldObserverEnding(
      null,
      { turnId: 't', observer: 'ci', ending: { reason: 'success' } },
      4,
    );
    expect(first).toEqual({
      by: 'observer',
      startedAt: 4,
      ending: { reason: 'success' },
      endedBy: { observer: 'ci' },
    });
    const again = { turnId: 't', observer: 'ci2', ending: { reason: 'interrupted' as const } };
    expect(foldObserverEnding(first, again, 4)).toBe(first);
    // Another turn's: told anew.
    expect(foldObserverEnding(first, again, 9)).toMatchObject({
      startedAt: 9,
      endedBy: { observer: 'ci2' },
    });
    // An observer turn with no ending (none is ever kept, but the rule says "ended").
    const none: RecordTurn = { ...first, ending: null };
    expect(foldObserverEnding(none, again, 4)).toMatchObject({ ending: { reason: 'interrupted' } });
  });
});

const ctx = witnessContext;

describe('which witness speaks for the open turn', () => {
  it('what each can tell: an observer what it said, a hook only what its CLI’s hooks tell, a record what its reader tells', () => {
    expect(markerTells(BOTH, 'observer', 'success')).toBe(true);
    expect(markerTells(BOTH, 'hook', 'success')).toBe(false);
    expect(markerTells({ ...BOTH, hookEndings: ['success'] }, 'hook', 'success')).toBe(true);
    expect(markerTells({ ...BOTH, hookEndings: ['success'] }, 'hook', 'interrupted')).toBe(false);
    expect(markerTells(BOTH, 'record', 'known_failure')).toBe(true);
    expect(recordTells(BOTH, 'success')).toBe(true);
    expect(recordTells({ ...BOTH, endings: ['interrupted'] }, 'success')).toBe(false);
    expect(recordTells({ ...BOTH, endings: ['interrupted'] }, 'interrupted')).toBe(true);
    expect(markerTells({ ...BOTH, endings: [] }, 'observer', 'success')).toBe(true);
  });

  it('a record or hook turn is the open turn’s when it started no earlier than 2 s before it', () => {
    const c = (startedAt: number) =>
      ctx({ markers: { record: open(startedAt), hook: null, observer: null } });
    expect(markersOf(c(8), 10)).toHaveLength(1);
    expect(markersOf(c(7.99), 10)).toHaveLength(0);
    expect(markersOf(c(30), 10)).toHaveLength(1);
    // A record not followed speaks for no turn.
    expect(markersOf({ ...c(10), recordLive: false }, 10)).toHaveLength(0);
  });

  it('a record or hook turn that ended before the open turn started is an earlier turn’s', () => {
    // The previous prompt's run began 1.8 s and ended 0.3 s before this one was armed: within
    // the start's slack, but its ending cannot be this turn's (it is typed after the arm).
    const record = endedTurn(8.2, 9.7);
    expect(markersOf(ctx({ markers: { record, hook: null, observer: null } }), 10)).toEqual([]);
    expect(
      markersOf(
        ctx({ markers: { record: { ...record, endedAt: 10 }, hook: null, observer: null } }),
        10,
      ),
    ).toHaveLength(1);
    const hook: RecordTurn = {
      by: 'hook',
      startedAt: 8.2,
      ending: { reason: 'success' },
      endedBy: { hook: 'Stop' },
      endedAt: 9.7,
    };
    expect(markersOf(ctx({ markers: { record: null, hook, observer: null } }), 10)).toEqual([]);
    expect(
      markersOf(
        ctx({ markers: { record: null, hook: { ...hook, endedAt: 10.1 }, observer: null } }),
        10,
      ),
    ).toHaveLength(1);
    // Still open at the arm: it may be this turn's.
    expect(
      markersOf(ctx({ markers: { record: open(8.2), hook: null, observer: null } }), 10),
    ).toHaveLength(1);
  });

  it('an observer’s turn is the one it named, exactly', () => {
    const observer: RecordTurn = {
      by: 'observer',
      startedAt: 10,
      ending: { reason: 'success' },
      endedBy: { observer: 'ci' },
    };
    const c = ctx({ markers: { record: null, hook: null, observer } });
    expect(markersOf(c, 10)).toEqual([observer]);
    expect(markersOf(c, 10.5)).toEqual([]);
    expect(markersOf(c, 9.5)).toEqual([]);
  });

  it('one that ended the turn first; else one that can tell a success, so a success waits for it', () => {
    const rec: RecordTurn = open(10);
    const hook: RecordTurn = { by: 'hook', startedAt: 10, ending: null, endedBy: null };
    const hookEnded: RecordTurn = {
      ...hook,
      ending: { reason: 'success' },
      endedBy: { hook: 'Stop' },
    };
    const both = (
      record: RecordTurn | null,
      h: RecordTurn | null,
      config: WitnessConfig | null = BOTH,
    ) => recordOf(ctx({ config, markers: { record, hook: h, observer: null } }), 10);
    expect(both(rec, hookEnded)).toBe(hookEnded);
    // The record cannot tell a success here, the hooks can: the hook's open turn is the one.
    const noSuccess = {
      ...BOTH,
      endings: ['interrupted'] as const,
      hookEndings: ['success'] as const,
    };
    expect(both(rec, hook, noSuccess)).toBe(hook);
    expect(both(rec, hook, BOTH)).toBe(rec);
    // Neither can: the first.
    expect(both(rec, hook, { ...BOTH, endings: ['interrupted'] })).toBe(rec);
    expect(both(rec, hook, null)).toBe(rec);
    expect(both(null, null)).toBeNull();
  });
});

describe('evidence for the completion chart and the journal', () => {
  const screen = (o: Partial<WitnessScreen> = {}): WitnessScreen => ({
    turn: { id: 'turn-1', startedAt: 10 },
    lastStartedAt: 10,
    phase: 'active',
    settling: false,
    evidence: true,
    frame: null,
    ...o,
  });
  const success: RecordTurn = {
    by: 'record',
    startedAt: 10,
    ending: { reason: 'success' },
    endedBy: { file: 'r', offset: 3, event: 'done' },
    endedAt: 12,
  };
  const withRecord = (record: RecordTurn | null, config: WitnessConfig | null = BOTH) =>
    ctx({ config, markers: { record, hook: null, observer: null } });

  it('a marker’s success is the completion chart’s evidence, under markers or both only', () => {
    expect(successEvidence(withRecord(success), screen())).toEqual(success.endedBy);
    expect(
      successEvidence(withRecord(success, { ...BOTH, authority: 'markers' }), screen()),
    ).toEqual(success.endedBy);
    expect(
      successEvidence(withRecord(success, { ...BOTH, authority: 'surface' }), screen()),
    ).toBeNull();
    expect(successEvidence(withRecord(success, null), screen())).toBeNull();
    expect(
      successEvidence(withRecord({ ...success, ending: { reason: 'interrupted' } }), screen()),
    ).toBeNull();
  });

  it('after the outcome, the latest turn’s: it outlives the open turn', () => {
    expect(successEvidence(withRecord(success), screen({ turn: null }))).toEqual(success.endedBy);
    expect(
      successEvidence(withRecord(success), screen({ turn: null, lastStartedAt: 20 })),
    ).toBeNull();
    expect(
      successEvidence(withRecord(success), screen({ turn: null, lastStartedAt: null })),
    ).toBeNull();
  });

  it('each witness that ended the turn that way names its evidence', () => {
    const hook: RecordTurn = {
      by: 'hook',
      startedAt: 10,
      ending: { reason: 'success' },
      endedBy: { hook: 'Stop' },
    };
    const observer: RecordTurn = {
      by: 'observer',
      startedAt: 10,
      ending: { reason: 'interrupted' },
      endedBy: { observer: 'ci' },
    };
    const c = ctx({ markers: { record: success, hook, observer } });
    expect(evidenceOf(c, 'success', 10)).toEqual({
      record: { file: 'r', offset: 3, event: 'done' },
      hook: { event: 'Stop' },
    });
    expect(evidenceOf(c, 'interrupted', 10)).toEqual({ observer: { name: 'ci' } });
    const noEvidence = ctx({
      markers: { record: { ...success, endedBy: null }, hook: null, observer: null },
    });
    expect(evidenceOf(noEvidence, 'success', 10)).toEqual({});
  });
});
