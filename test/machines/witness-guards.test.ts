/**
 * The witness chart's rules one by one (docs/witness.md, "Completion authority"): each named
 * guard answers as the rule it carries says, on the case that makes it true and on each case
 * that differs from it in one fact only. The path tests (test/model/witness.model.test.ts) walk
 * the chart's edges; this shows each rule reads every fact it names, and nothing else decides.
 */
import { describe, expect, it } from 'vitest';
import {
  witnessMachine,
  type RecordTurn,
  type WitnessConfig,
  type WitnessContext,
  type WitnessEvent,
  type WitnessScreen,
} from '../../machines/witness.js';
import type { FrameSignals } from '../../machines/turnPhase.types.js';
import { IDLE } from './internal/turn-phase-chart.js';
import { BOTH, witnessContext } from './internal/witness-context.js';

type Guard = (args: { context: WitnessContext; event: WitnessEvent }, params?: unknown) => boolean;
const guards = witnessMachine.implementations.guards as unknown as Record<string, Guard>;
const guard = (name: string): Guard => {
  const g = guards[name];
  if (!g) throw new Error(`the witness chart has no guard ${name}`);
  return g;
};

const MARKERS: WitnessConfig = { authority: 'markers', windowSeconds: 3 };
const SURFACE: WitnessConfig = { authority: 'surface', windowSeconds: 3 };

/** A ready idle prompt, as docs/witness.md lists it, with no dialog. */
const idleSignals = (): FrameSignals & { blockedPrompt: unknown } => ({
  ...IDLE,
  blockedPrompt: null,
});

const TURN = { id: 'turn-1', startedAt: 100 };

function screen(o: Partial<WitnessScreen> = {}): WitnessScreen {
  return {
    turn: TURN,
    lastStartedAt: TURN.startedAt,
    phase: 'active',
    settling: false,
    evidence: true,
    frame: { available: true, signals: idleSignals() },
    ...o,
  };
}

const context = witnessContext;

const recordTurn = (o: Partial<RecordTurn> = {}): RecordTurn => ({
  by: 'record',
  startedAt: TURN.startedAt + 0.5,
  ending: null,
  endedBy: null,
  ...o,
});
const success = recordTurn({
  ending: { reason: 'success' },
  endedBy: { file: 'r.jsonl', offset: 1, event: 'end' },
});
const interrupted = recordTurn({
  ending: { reason: 'interrupted' },
  endedBy: { file: 'r.jsonl', offset: 1, event: 'abort' },
});

const frame = (s: WitnessScreen): WitnessEvent => ({ type: 'frame', t: 101, screen: s });
const withRecord = (record: RecordTurn | null, o: Partial<WitnessContext> = {}) =>
  context({ markers: { record, hook: null, observer: null }, ...o });

describe('success at an idle prompt: the record says success and the screen reads a ready idle prompt', () => {
  const g = guard('marker_success_at_idle_prompt');
  const at = (s: WitnessScreen, c = withRecord(success)) => g({ context: c, event: frame(s) });

  it('agrees on the ready idle prompt after the turn’s own evidence', () => {
    expect(at(screen())).toBe(true);
  });

  const signal = (patch: Partial<ReturnType<typeof idleSignals>>) =>
    screen({ frame: { available: true, signals: { ...idleSignals(), ...patch } } });
  it.each([
    ['no ready posture', signal({ readyPosture: 'no' })],
    ['ready posture unknown', signal({ readyPosture: 'unknown' })],
    ['not accepting input', signal({ acceptingInput: 'no' })],
    ['a draft in the prompt', signal({ editingInput: 'yes' })],
    ['something active', signal({ activeReasons: ['spinner'] })],
    ['an interrupt marker', signal({ interrupted: true })],
    ['a failure marker', signal({ knownFailure: { kind: 'api_error', message: 'x' } })],
    ['a dialog', signal({ blockedPrompt: 'Allow?' })],
    ['an ambiguous screen', signal({ ambiguous: true })],
    ['no turn evidence of its own', screen({ evidence: false })],
    ['no screen readable', screen({ frame: { available: false, signals: idleSignals() } })],
    ['no frame yet', screen({ frame: null })],
  ])('does not agree with %s', (_, s) => {
    expect(at(s)).toBe(false);
  });

  it('a draft unknown is no draft: the prompt still reads idle', () => {
    expect(at(signal({ editingInput: 'unknown' }))).toBe(true);
  });

  it('needs the record’s success: an interrupted record or an open record turn does not agree', () => {
    expect(at(screen(), withRecord(interrupted))).toBe(false);
    expect(at(screen(), withRecord(recordTurn()))).toBe(false);
    expect(at(screen(), withRecord(null))).toBe(false);
  });

  it('the record turn must be this turn’s: one started more than 2 s before it was armed is not', () => {
    const old = { ...success, startedAt: TURN.startedAt - 2.5 };
    expect(at(screen(), withRecord(old))).toBe(false);
    expect(at(screen(), withRecord({ ...success, startedAt: TURN.startedAt - 1.5 }))).toBe(true);
  });

  it('with no turn open there is no record turn to agree with', () => {
    expect(at(screen({ turn: null }))).toBe(false);
  });
});

describe('success while the screen’s candidate settles (or is held)', () => {
  const g = guard('marker_success_while_settling');
  const at = (s: WitnessScreen, held: boolean, c = withRecord(success)) =>
    g({ context: c, event: frame(s) }, held);

  it('the record’s success and a settling candidate agree; so do a held one', () => {
    expect(at(screen({ settling: true }), false)).toBe(true);
    expect(at(screen({ settling: false }), true)).toBe(true);
  });
  it('no candidate settling and none held: nothing to agree with', () => {
    expect(at(screen({ settling: false }), false)).toBe(false);
  });
  it('the record’s interrupt never agrees with a success candidate', () => {
    expect(at(screen({ settling: true }), true, withRecord(interrupted))).toBe(false);
  });
});

describe('under markers the record’s ending decides at once; under both it waits', () => {
  const g = guard('marker_decides_under_markers');
  it.each([
    ['markers, record ended', MARKERS, interrupted, true],
    ['markers, record open', MARKERS, recordTurn(), false],
    ['markers, no record turn', MARKERS, null, false],
    ['both, record ended', BOTH, interrupted, false],
  ] as const)('%s', (_, config, record, expected) => {
    expect(g({ context: withRecord(record, { config }), event: frame(screen()) })).toBe(expected);
  });
});

describe('a screen success the record says ended otherwise gives way at once', () => {
  const g = guard('marker_disproves_held_success');
  it.each([
    ['the record interrupted it', interrupted, true],
    ['the record’s success', success, false],
    ['the record still open', recordTurn(), false],
    ['no record turn', null, false],
  ] as const)('%s', (_, record, expected) => {
    expect(g({ context: withRecord(record), event: frame(screen()) })).toBe(expected);
  });
});

describe('the screen’s settled success and the record', () => {
  it('no record turn: the screen decides alone', () => {
    const g = guard('no_marker_turn');
    expect(g({ context: withRecord(null), event: frame(screen()) })).toBe(true);
    expect(g({ context: withRecord(recordTurn()), event: frame(screen()) })).toBe(false);
  });

  it('a record turn that cannot tell a success (its endings lack it) is not waited for', () => {
    const g = guard('marker_cannot_tell_success');
    const noSuccess = { ...BOTH, endings: ['interrupted', 'known_failure'] as const };
    const c = (config: WitnessConfig, record: RecordTurn | null) => withRecord(record, { config });
    expect(g({ context: c(noSuccess, recordTurn()), event: frame(screen()) })).toBe(true);
    expect(g({ context: c(BOTH, recordTurn()), event: frame(screen()) })).toBe(false);
    // Ended already: not an open turn to wait for, whatever it can tell.
    expect(g({ context: c(noSuccess, interrupted), event: frame(screen()) })).toBe(false);
    expect(g({ context: c(noSuccess, null), event: frame(screen()) })).toBe(false);
  });

  it('an open record turn holds the success; an ended or absent one does not', () => {
    const g = guard('marker_turn_open');
    expect(g({ context: withRecord(recordTurn()), event: frame(screen()) })).toBe(true);
    expect(g({ context: withRecord(interrupted), event: frame(screen()) })).toBe(false);
    expect(g({ context: withRecord(null), event: frame(screen()) })).toBe(false);
  });

  it('a held success is released only to the turn it was held for, while the screen has it', () => {
    const g = guard('held_turn_open');
    const open = screen();
    const id = open.turn!.id;
    expect(g({ context: context({ held: id }), event: frame(open) })).toBe(true);
    expect(g({ context: context({ held: id }), event: frame(screen({ turn: null })) })).toBe(false);
    const next = screen({ turn: { id: `${id}-next`, startedAt: open.turn!.startedAt + 10 } });
    expect(g({ context: context({ held: id }), event: frame(next) })).toBe(false);
    expect(g({ context: context({ held: null }), event: frame(open) })).toBe(false);
  });
});

describe('the record is weighed only when followed, and only under markers or both', () => {
  const piece = (type: 'turn_started' | 'turn_ended'): WitnessEvent => ({
    type: 'record_event',
    t: 101,
    screen: screen(),
    event:
      type === 'turn_started'
        ? { type, event: 'start', position: { file: 'r.jsonl', offset: 0 } }
        : {
            type,
            event: 'end',
            ending: { reason: 'success' },
            position: { file: 'r.jsonl', offset: 9 },
          },
  });

  it.each([
    ['both, followed', BOTH, true, true],
    ['both, not followed', BOTH, false, false],
    ['markers, followed', MARKERS, true, true],
    ['surface, followed', SURFACE, true, false],
    ['no config', null, true, false],
  ] as const)('record_followed: %s', (_, config, recordLive, expected) => {
    const g = guard('record_followed');
    expect(g({ context: context({ config, recordLive }), event: piece('turn_started') })).toBe(
      expected,
    );
  });

  it('a piece ends the turn only when it is an ending of a followed, weighed record', () => {
    const g = guard('record_piece_ends_turn');
    const open = withRecord(recordTurn({ startedAt: 100.5 }));
    expect(g({ context: open, event: piece('turn_ended') })).toBe(true);
    expect(g({ context: open, event: piece('turn_started') })).toBe(false);
    expect(g({ context: { ...open, recordLive: false }, event: piece('turn_ended') })).toBe(false);
    expect(g({ context: { ...open, config: SURFACE }, event: piece('turn_ended') })).toBe(false);
    // A start read late from the same file, written before the turn's ending, starts nothing:
    // the record's turn stays the one that already ended, and nothing ends now.
    const ended = withRecord(
      recordTurn({
        startedAt: 100.5,
        ending: { reason: 'success' },
        endedBy: { file: 'r.jsonl', offset: 9, event: 'end' },
        endedAt: 102,
      }),
    );
    const lateStart: WitnessEvent = {
      type: 'record_event',
      t: 103,
      screen: screen(),
      event: {
        type: 'turn_started',
        event: 'start',
        atMs: 101_000,
        position: { file: 'r.jsonl', offset: 0 },
      },
    };
    expect(g({ context: ended, event: lateStart })).toBe(false);
  });

  it('a hook’s ending is weighed under both and markers, not under surface', () => {
    const g = guard('hook_tells_ending');
    const hook = (type: 'turn_started' | 'turn_ended'): WitnessEvent => ({
      type: 'hook_event',
      t: 101,
      screen: screen(),
      event:
        type === 'turn_started'
          ? { type, event: 'UserPromptSubmit' }
          : { type, event: 'Stop', ending: { reason: 'success' } },
    });
    expect(g({ context: context(), event: hook('turn_ended') })).toBe(true);
    expect(g({ context: context(), event: hook('turn_started') })).toBe(false);
    expect(g({ context: context({ config: SURFACE }), event: hook('turn_ended') })).toBe(false);
  });
});

describe('a completion observer’s ending', () => {
  const ending = (turnId: string, s = screen()): WitnessEvent => ({
    type: 'observer_ending',
    t: 101,
    screen: s,
    event: { turnId, observer: 'ci', ending: { reason: 'success' } },
  });

  it('names the open turn, or is refused', () => {
    const g = guard('observer_not_current_turn');
    expect(g({ context: context(), event: ending('turn-1') })).toBe(false);
    expect(g({ context: context(), event: ending('turn-0') })).toBe(true);
    expect(g({ context: context(), event: ending('turn-1', screen({ turn: null })) })).toBe(true);
  });

  it('is refused once an observer ended that very turn', () => {
    const g = guard('observer_already_ended');
    const ended: RecordTurn = {
      by: 'observer',
      startedAt: TURN.startedAt,
      ending: { reason: 'success' },
      endedBy: { observer: 'ci' },
    };
    const c = (observer: RecordTurn | null) =>
      context({ markers: { record: null, hook: null, observer } });
    expect(g({ context: c(ended), event: ending('turn-1') })).toBe(true);
    expect(g({ context: c({ ...ended, ending: null }), event: ending('turn-1') })).toBe(false);
    expect(g({ context: c({ ...ended, startedAt: 90 }), event: ending('turn-1') })).toBe(false);
    expect(g({ context: c(null), event: ending('turn-1') })).toBe(false);
    expect(g({ context: c(ended), event: ending('turn-1', screen({ turn: null })) })).toBe(false);
  });
});
