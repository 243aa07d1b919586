import { describe, expect, it } from 'vitest';
import {
  harness,
  kept,
  make,
  SETTLE,
  streamThenCandidate,
  T0,
  WINDOW,
} from './internal/witness-harness.js';

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
    const h = kept(harness('both', ['interrupted', 'known_failure']));
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

  it('a short turn’s success is not the next prompt’s, armed within 2 s of its start', () => {
    const h = make('both');
    h.arm();
    const startedAt = h.t;
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.frame({});
    h.ended({ reason: 'success' });
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'both' })]);
    // The next prompt, armed while the last record turn's start is within the slack: the CLI
    // echoes it and reads as an idle prompt a moment before it starts working.
    h.wait(0.3);
    h.driver.armExplicit(h.t, 'turn-2');
    expect(h.t - startedAt).toBeLessThan(2);
    h.reply();
    h.frame({});
    h.frame({});
    expect(h.ends()).toHaveLength(1);
    // Its own record turn, begun after the arm, decides with the screen.
    h.record({ type: 'turn_started', event: 'user', position: { file: '/r', offset: 200 } });
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.reply();
    h.frame({});
    expect(h.ends()).toHaveLength(1);
    h.ended({ reason: 'success' }, 300);
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'success', witness: 'both' }),
      expect.objectContaining({ outcome: 'success', witness: 'both' }),
    ]);
  });

  it('a success the record witnessed stands when the reply is redrawn; the screen’s alone is withdrawn', () => {
    const kinds = (h: ReturnType<typeof make>) => h.turns.map((x) => x.kind);
    const witnessed = make('both');
    witnessed.arm();
    streamThenCandidate(witnessed);
    witnessed.ended({ reason: 'success' });
    expect(witnessed.ends()).toEqual([expect.objectContaining({ witness: 'both' })]);
    // Within the settle window, the reply drawn again (Copilot reflows it), nothing else.
    witnessed.reply();
    witnessed.frame({});
    witnessed.wait(SETTLE * 2);
    witnessed.frame({});
    expect(kinds(witnessed)).toEqual(['turn.started', 'turn.ended']);
    witnessed.dispose();

    const alone = make('surface');
    alone.arm();
    streamThenCandidate(alone);
    alone.wait(SETTLE);
    expect(alone.ends()).toEqual([expect.objectContaining({ witness: 'surface' })]);
    alone.reply();
    alone.frame({});
    expect(kinds(alone)).toEqual(['turn.started', 'turn.ended', 'turn.reopened']);
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
