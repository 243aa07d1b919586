import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { lastTurnMachine } from '../../machines/lastTurn.js';
import { turnPhaseMachine } from '../../machines/turnPhase.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import { Timers } from '../../src/kernel/timers.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import type { RecordedEnding, RecordEvent } from '../../src/profiles/session-record.js';
import type { TurnSignals } from '../../src/schemas/signals.js';
import {
  TurnDriver,
  type TurnLifecycle,
  type WitnessDisagreement,
} from '../../src/terminal/turn-driver.js';
import type { CompletionAuthority, WitnessConfig } from '../../src/terminal/witness.js';
import { witnessMachine } from '../../machines/witness.js';

const IDLE: TurnSignals = {
  acceptingInput: 'yes',
  editingInput: 'no',
  readyPosture: 'yes',
  activeReasons: [],
  interrupted: false,
  knownFailure: null,
  successCandidate: false,
  blockedPrompt: null,
  ambiguous: false,
  chatContext: 'current',
};
const SETTLE = 1;
const WINDOW = 3;
const T0 = 1_800_000_000; // observation seconds (epoch seconds live)

/** The turn charts on virtual time with a completion witness, fed frames and record events. */
function harness(
  authority: CompletionAuthority | null,
  endings?: readonly RecordedEnding['reason'][],
  hookEndings?: readonly RecordedEnding['reason'][],
) {
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const hub = new InspectionHub();
  const turnPhase = createActor(turnPhaseMachine, {
    input: { settleSeconds: SETTLE, staleActiveSeconds: 30 },
    inspect: hub.inspect,
  }).start();
  const lastTurn = createActor(lastTurnMachine, { inspect: hub.inspect }).start();
  const config: WitnessConfig | null = authority
    ? {
        authority,
        windowSeconds: WINDOW,
        ...(endings ? { endings } : {}),
        ...(hookEndings ? { hookEndings } : {}),
      }
    : null;
  const witness = createActor(witnessMachine, {
    input: config ? { config } : {},
    inspect: hub.inspect,
  }).start();
  const turns: TurnLifecycle[] = [];
  const disagreements: WitnessDisagreement[] = [];
  const driver = new TurnDriver({
    turnPhase,
    lastTurn,
    hub,
    timers,
    nextTurnId: () => 'turn-x',
    onTransition: () => undefined,
    onTurn: (ev) => turns.push(ev),
    witness,
    onDisagreement: (d) => disagreements.push(d),
  });
  let t = T0;
  let text = '> prompt';
  const h = {
    get t() {
      return t;
    },
    turns,
    disagreements,
    driver,
    wait(dt: number) {
      t += dt;
      clock.advanceTo(t);
      timers.advanceTo(t);
    },
    frame(signals: Partial<TurnSignals> = {}) {
      h.wait(0.25);
      driver.frame(t, { available: true, signals: { ...IDLE, ...signals }, projectionText: text });
    },
    reply() {
      text += '\n● reply';
    },
    arm() {
      h.frame();
      h.wait(0.25);
      driver.armExplicit(t, 'turn-1');
      driver.recordAvailable(t, true);
      h.record({ type: 'turn_started', event: 'user', position: { file: '/r', offset: 0 } });
    },
    record(e: RecordEvent) {
      driver.recordEvent(t, { ...e, atMs: t * 1000 } as RecordEvent);
    },
    /** A hook's event: the prompt taken (`UserPromptSubmit`), or an ending. */
    hook(event: string, ending?: RecordedEnding) {
      driver.hookEvent(
        t,
        ending ? { type: 'turn_ended', event, ending } : { type: 'turn_started', event },
      );
    },
    /** Arms a turn whose start only the hook tells (no session record followed). */
    armHook() {
      h.frame();
      h.wait(0.25);
      driver.armExplicit(t, 'turn-1');
      h.hook('UserPromptSubmit');
    },
    ended(ending: RecordedEnding, offset = 100) {
      h.record({ type: 'turn_ended', ending, event: 'end', position: { file: '/r', offset } });
    },
    ends() {
      return turns.flatMap((x) =>
        x.kind === 'turn.ended'
          ? [{ outcome: x.outcome, witness: x.witness, at: +(x.t - T0).toFixed(2) }]
          : [],
      );
    },
    dispose() {
      driver.stop();
      timers.dispose();
      turnPhase.stop();
      lastTurn.stop();
    },
  };
  return h;
}

let current: ReturnType<typeof harness> | null = null;
const make = (a: CompletionAuthority | null) => (current = harness(a));
afterEach(() => current?.dispose());

/** A reply that streams for a while and then stands as a success candidate. */
function streamThenCandidate(h: ReturnType<typeof harness>) {
  h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
  h.reply();
  h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
  h.frame({ successCandidate: true });
}

describe('completion witness: both', () => {
  it('settles a success at once when the record ended the turn and the screen is a candidate', () => {
    const h = make('both');
    h.arm();
    streamThenCandidate(h);
    const candidateAt = h.t;
    h.wait(0.1);
    h.ended({ reason: 'success' });
    expect(h.ends()).toEqual([{ outcome: 'success', witness: 'both', at: +(h.t - T0).toFixed(2) }]);
    // Sooner than the screen alone, which waits out the settle window.
    expect(h.t - candidateAt).toBeLessThan(SETTLE);
    expect(h.driver.snapshot().lastTurn).toMatchObject({ result: 'success', witness: 'both' });
  });

  it('never later than the screen alone: the record ending first, the candidate settles on sight', () => {
    const surface = make(null);
    surface.arm();
    streamThenCandidate(surface);
    surface.wait(2);
    const alone = surface.ends()[0]!.at;
    surface.dispose();
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.ended({ reason: 'success' }); // the stream ended while the CLI still draws
    h.frame({ successCandidate: true });
    h.wait(2);
    expect(h.ends()).toHaveLength(1);
    expect(h.ends()[0]!.at).toBeLessThan(alone);
    expect(h.ends()[0]!.witness).toBe('both');
  });

  it('holds the screen success while the record is open, and lets it stand after the window', () => {
    const h = make('both');
    h.arm();
    streamThenCandidate(h);
    h.wait(SETTLE + 0.5);
    expect(h.ends()).toEqual([]); // the record has not ended the turn
    h.wait(WINDOW);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
    expect(h.disagreements).toEqual([
      expect.objectContaining({ record: 'open', decided: 'surface', evidence: null }),
    ]);
  });

  it('does not hold the screen success for a record that cannot tell one (Gemini CLI)', () => {
    const h = (current = harness('both', ['interrupted', 'known_failure']));
    h.arm();
    streamThenCandidate(h);
    const candidateAt = h.t;
    h.wait(SETTLE + 0.5);
    const ends = h.ends();
    expect(ends).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
    // Settled when the settle window ran out, as from the screen alone: not a window later.
    expect(ends[0]!.at).toBeLessThanOrEqual(+(candidateAt + SETTLE + 0.01 - T0).toFixed(2));
    expect(h.disagreements).toEqual([]);
  });

  it('the record wins after the window when the screen never shows the end (Cline)', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.ended({ reason: 'success' }, 4242);
    // The screen keeps reading "working": no candidate ever.
    for (let i = 0; i < 4; i += 1) h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(h.ends()).toEqual([]);
    h.wait(WINDOW);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'record' })]);
    expect(h.disagreements).toEqual([
      expect.objectContaining({
        record: 'success',
        decided: 'record',
        screen: { phase: 'active', successCandidate: false },
        evidence: { file: '/r', offset: 4242, event: 'end' },
      }),
    ]);
    const ended = h.turns.find((x) => x.kind === 'turn.ended');
    expect(ended).toMatchObject({ record: { file: '/r', offset: 4242, event: 'end' } });
  });

  it('a success the record wrote agrees with a screen at a ready idle prompt (no candidate drawn)', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    // An idle prompt that is not a success candidate (the way Cline draws any finished turn).
    h.frame({});
    h.ended({ reason: 'success' });
    expect(h.ends()).toEqual([{ outcome: 'success', witness: 'both', at: +(h.t - T0).toFixed(2) }]);
    expect(h.disagreements).toEqual([]);
  });

  it('the record ending first, the next ready frame agrees at once', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.ended({ reason: 'success' });
    expect(h.ends()).toEqual([]);
    h.reply();
    h.frame({});
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'both' })]);
  });

  it('an interruption the record wrote and the screen showed is decided by both', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.ended({ reason: 'interrupted' });
    h.frame({ interrupted: true });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'both' }),
    ]);
    expect(h.disagreements).toEqual([]);
  });

  it('a screen interruption the record confirms within the window becomes both', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.frame({ interrupted: true });
    expect(h.driver.snapshot().lastTurn).toMatchObject({
      result: 'interrupted',
      witness: 'surface',
    });
    h.wait(0.5);
    h.ended({ reason: 'interrupted' });
    expect(h.driver.snapshot().lastTurn).toMatchObject({ result: 'interrupted', witness: 'both' });
  });

  it('a record ending that differs from the screen, or comes too late, confirms nothing', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.frame({ interrupted: true });
    h.ended({ reason: 'success' });
    expect(h.driver.snapshot().lastTurn.witness).toBe('surface');
  });

  it('a screen success the record says was interrupted is the record’s interruption', () => {
    const h = make('both');
    h.arm();
    streamThenCandidate(h);
    h.wait(SETTLE + 0.1); // held: the record is open
    h.ended({ reason: 'interrupted' });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'record' }),
    ]);
    expect(h.disagreements[0]).toMatchObject({
      record: 'interrupted',
      screen: { successCandidate: true },
    });
  });

  it('a known failure only the record names wins after the window', () => {
    const h = make('both');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.ended({ reason: 'known_failure', kind: 'server_error' });
    h.frame({});
    h.wait(WINDOW + 0.1);
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'known_failure', witness: 'record' }),
    ]);
  });

  it('a record ending of an earlier turn is not this turn’s', () => {
    const h = make('both');
    h.frame();
    h.driver.recordAvailable(h.t, true);
    h.record({ type: 'turn_started', event: 'user', position: { file: '/r', offset: 0 } });
    h.ended({ reason: 'success' });
    h.wait(10);
    h.driver.armExplicit(h.t, 'turn-1');
    streamThenCandidate(h);
    h.wait(0.2);
    expect(h.ends()).toEqual([]); // the screen alone: its settle window still runs
    h.wait(SETTLE);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
  });

  it('an ending read late from a side record but written before this turn started is not its', () => {
    // Cline's log is read from its start once the messages record is found: an interrupted run
    // of an earlier turn comes after this turn's start was read.
    const h = make('both');
    h.arm();
    const startedAt = h.t;
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.driver.recordEvent(h.t, {
      type: 'turn_ended',
      ending: { reason: 'interrupted' },
      event: 'agent.run-finished',
      position: { file: '/log', offset: 7 },
      atMs: (startedAt - 5) * 1000,
    });
    for (let i = 0; i < 4 * WINDOW; i += 1)
      h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(h.ends()).toEqual([]);
    h.reply();
    h.frame({ successCandidate: true });
    h.ended({ reason: 'success' });
    h.wait(0.3);
    h.frame({ successCandidate: true });
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success' })]);
  });

  it('a side record’s ending read before the start it follows ends that turn (Cline)', () => {
    // Cline writes the prompt into its messages only as the run ends; its log says `aborted`
    // at once, so the log's line may be read first.
    const h = make('both');
    h.frame();
    h.wait(0.25);
    h.driver.armExplicit(h.t, 'turn-1');
    h.driver.recordAvailable(h.t, true);
    const armedAt = h.t;
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.wait(2);
    h.driver.recordEvent(h.t, {
      type: 'turn_ended',
      ending: { reason: 'interrupted' },
      event: 'agent.run-finished',
      position: { file: '/log', offset: 7 },
      atMs: h.t * 1000,
    });
    h.driver.recordEvent(h.t, {
      type: 'turn_started',
      event: 'user_input',
      position: { file: '/r', offset: 2 },
      atMs: armedAt * 1000,
    });
    for (let i = 0; i < 4 * WINDOW; i += 1) h.frame({ successCandidate: true });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'record' }),
    ]);
    const ended = h.turns.find((x) => x.kind === 'turn.ended');
    expect(ended).toMatchObject({
      record: { file: '/log', offset: 7, event: 'agent.run-finished' },
    });
  });

  it('the record stepping aside hands a held success back to the screen', () => {
    const h = make('both');
    h.arm();
    streamThenCandidate(h);
    h.wait(SETTLE + 0.1);
    expect(h.ends()).toEqual([]);
    h.driver.recordAvailable(h.t, false);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
  });
});

describe('completion witness: markers and surface', () => {
  it('markers: the record decides the outcome at once', () => {
    const h = make('markers');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.ended({ reason: 'known_failure', kind: 'rate_limit' });
    expect(h.ends()).toEqual([
      expect.objectContaining({
        outcome: 'known_failure',
        witness: 'record',
        at: +(h.t - T0).toFixed(2),
      }),
    ]);
    expect(h.disagreements).toEqual([]);
  });

  it('surface: record events change nothing', () => {
    const h = make('surface');
    h.arm();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.ended({ reason: 'interrupted' });
    h.wait(WINDOW + 1);
    expect(h.ends()).toEqual([]);
    h.reply();
    h.frame({ successCandidate: true });
    h.wait(SETTLE + 0.1);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
  });
});

/** Claude Code's hooks (docs/hooks.md): `Stop` is a success, `StopFailure` a known failure. */
const CLAUDE_HOOKS = ['success', 'known_failure'] as const;
const hooked = (a: CompletionAuthority) => (current = harness(a, undefined, CLAUDE_HOOKS));

describe('completion witness: a hook as the third witness', () => {
  it('a hook’s success agrees with the screen’s candidate at once: both, with the hook’s event', () => {
    const h = hooked('both');
    h.armHook();
    streamThenCandidate(h);
    h.wait(0.1);
    h.hook('Stop', { reason: 'success' });
    expect(h.ends()).toEqual([{ outcome: 'success', witness: 'both', at: +(h.t - T0).toFixed(2) }]);
    const ended = h.turns.find((x) => x.kind === 'turn.ended');
    expect(ended).toMatchObject({ hook: { event: 'Stop' } });
    expect(ended).not.toHaveProperty('record');
    expect(h.driver.snapshot().lastTurn).toMatchObject({ result: 'success', witness: 'both' });
  });

  it('an ending the hooks cannot tell stays the screen’s: an interruption, no waiting, no anomaly', () => {
    const h = hooked('both');
    h.armHook();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.frame({ interrupted: true });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'surface' }),
    ]);
    h.wait(WINDOW + 1);
    expect(h.ends()).toHaveLength(1);
    expect(h.disagreements).toEqual([]);
  });

  it('a screen success waits for an open hook turn, then stands after the window (anomaly)', () => {
    const h = hooked('both');
    h.armHook();
    streamThenCandidate(h);
    h.wait(SETTLE + 0.5);
    expect(h.ends()).toEqual([]);
    h.wait(WINDOW);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
    expect(h.disagreements).toEqual([
      expect.objectContaining({ record: 'open', decided: 'surface', evidence: null }),
    ]);
  });

  it('a failure only the hook tells wins after the window: witness hook, its event as evidence', () => {
    const h = hooked('both');
    h.armHook();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.hook('StopFailure', { reason: 'known_failure', kind: 'server_error' });
    h.frame({});
    expect(h.ends()).toEqual([]);
    h.wait(WINDOW + 0.1);
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'known_failure', witness: 'hook' }),
    ]);
    expect(h.disagreements).toEqual([
      expect.objectContaining({
        record: 'known_failure',
        decided: 'hook',
        evidence: { hook: 'StopFailure' },
      }),
    ]);
    expect(h.turns.find((x) => x.kind === 'turn.ended')).toMatchObject({
      hook: { event: 'StopFailure' },
    });
  });

  it('markers: the hook decides at once', () => {
    const h = hooked('markers');
    h.armHook();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.hook('Stop', { reason: 'success' });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'success', witness: 'hook', at: +(h.t - T0).toFixed(2) }),
    ]);
  });

  it('with the record and a hook both ending the turn, the journal keeps both evidences', () => {
    const h = hooked('both');
    h.arm();
    h.hook('UserPromptSubmit');
    streamThenCandidate(h);
    h.hook('Stop', { reason: 'success' });
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'both' })]);
    h.ended({ reason: 'success' }, 77);
    h.arm();
    h.hook('UserPromptSubmit');
    streamThenCandidate(h);
    h.ended({ reason: 'success' }, 200);
    h.hook('Stop', { reason: 'success' });
    const ended = h.turns.filter((x) => x.kind === 'turn.ended');
    expect(ended).toHaveLength(2);
    expect(ended[1]).toMatchObject({ witness: 'both', record: { offset: 200 } });
    expect(ended[0]).toMatchObject({ witness: 'both', hook: { event: 'Stop' } });
  });

  it('a hook of an earlier turn is not this turn’s', () => {
    const h = hooked('both');
    h.frame();
    h.hook('UserPromptSubmit');
    h.hook('Stop', { reason: 'success' });
    h.wait(10);
    h.driver.armExplicit(h.t, 'turn-1');
    streamThenCandidate(h);
    h.wait(0.2);
    expect(h.ends()).toEqual([]);
    h.wait(SETTLE);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
  });

  it('a tool without hooks: hook events tell nothing it could wait for', () => {
    const h = make('both');
    h.armHook();
    streamThenCandidate(h);
    h.wait(SETTLE + 0.1);
    // No hook endings configured: an open hook turn is not waited for.
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'surface' })]);
  });

  it('surface: hook events change nothing', () => {
    const h = hooked('surface');
    h.armHook();
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.hook('StopFailure', { reason: 'known_failure', kind: 'server_error' });
    h.wait(WINDOW + 1);
    expect(h.ends()).toEqual([]);
  });
});

describe('completion witness: a completion observer', () => {
  const observed = (h: ReturnType<typeof harness>, ending: RecordedEnding, turnId = 'turn-1') =>
    h.driver.observerEnding(h.t, { turnId, observer: 'sentinel', ending });
  const armScreenOnly = (h: ReturnType<typeof harness>) => {
    h.frame();
    h.wait(0.25);
    h.driver.armExplicit(h.t, 'turn-1');
  };

  it('its success agrees with the screen’s candidate at once: both, sooner than the settle window', () => {
    const h = make('both');
    armScreenOnly(h);
    streamThenCandidate(h);
    const candidateAt = h.t;
    h.wait(0.1);
    expect(observed(h, { reason: 'success' })).toBeNull();
    expect(h.ends()).toEqual([{ outcome: 'success', witness: 'both', at: +(h.t - T0).toFixed(2) }]);
    expect(h.t - candidateAt).toBeLessThan(SETTLE);
    expect(h.turns.find((x) => x.kind === 'turn.ended')).toMatchObject({
      observer: { name: 'sentinel' },
    });
    // The completion chart's observer gets the same evidence.
    expect(h.driver.recordSuccessEvidence()).toEqual({ observer: 'sentinel' });
  });

  it('markers: it decides at once, while the screen still shows work', () => {
    const h = make('markers');
    armScreenOnly(h);
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(observed(h, { reason: 'success' })).toBeNull();
    expect(h.ends()).toEqual([
      expect.objectContaining({
        outcome: 'success',
        witness: 'observer',
        at: +(h.t - T0).toFixed(2),
      }),
    ]);
    expect(h.driver.snapshot().lastTurn).toMatchObject({ result: 'success', witness: 'observer' });
  });

  it('both: a failure it tells against the screen’s success wins after the window, as the record’s would', () => {
    const h = make('both');
    armScreenOnly(h);
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(observed(h, { reason: 'known_failure', kind: 'sentinel_missing' })).toBeNull();
    h.reply();
    h.frame({ successCandidate: true });
    h.wait(SETTLE + 0.5);
    expect(h.ends()).toEqual([]); // the screen's success is held: the two disagree
    h.wait(WINDOW);
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'known_failure', witness: 'observer' }),
    ]);
    expect(h.disagreements).toEqual([
      expect.objectContaining({
        record: 'known_failure',
        decided: 'observer',
        evidence: { observer: 'sentinel' },
        screen: expect.objectContaining({ successCandidate: true }),
      }),
    ]);
  });

  it('its silence holds nothing: the screen’s success stands after the settle window alone', () => {
    const h = make('both');
    armScreenOnly(h);
    streamThenCandidate(h);
    h.wait(SETTLE + 0.1);
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success' })]);
    expect(h.disagreements).toEqual([]);
  });

  it('takes an ending only for the open turn, and only the first for a turn', () => {
    const h = make('both');
    expect(observed(h, { reason: 'success' })).toBe('not_current_turn');
    armScreenOnly(h);
    expect(observed(h, { reason: 'success' }, 'turn-0')).toBe('not_current_turn');
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(observed(h, { reason: 'interrupted' })).toBeNull();
    expect(observed(h, { reason: 'success' })).toBe('already_ended');
    h.wait(WINDOW + 0.1);
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'observer' }),
    ]);
    expect(observed(h, { reason: 'success' })).toBe('not_current_turn');
  });

  it('an earlier turn’s ending is not the next turn’s, however soon it starts', () => {
    const h = make('both');
    armScreenOnly(h);
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    observed(h, { reason: 'known_failure', kind: 'x' });
    h.wait(0.3);
    h.driver.armExplicit(h.t, 'turn-2');
    streamThenCandidate(h);
    h.wait(SETTLE + 0.1);
    const ends = h.ends();
    expect(ends.at(-1)).toEqual(
      expect.objectContaining({ outcome: 'success', witness: 'surface' }),
    );
  });

  it('surface: it is not taken', () => {
    const h = make('surface');
    armScreenOnly(h);
    expect(observed(h, { reason: 'success' })).toBe('surface');
  });
});
