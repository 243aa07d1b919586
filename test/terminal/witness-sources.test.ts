import { describe, expect, it } from 'vitest';
import type { RecordedEnding } from '../../src/profiles/session-record.js';
import type { CompletionAuthority } from '../../src/terminal/witness.js';
import {
  harness,
  kept,
  make,
  SETTLE,
  streamThenCandidate,
  T0,
  WINDOW,
} from './internal/witness-harness.js';

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
const hooked = (a: CompletionAuthority) => kept(harness(a, undefined, CLAUDE_HOOKS));

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
