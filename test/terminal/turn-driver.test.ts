import { describe, expect, it } from 'vitest';
import type { TurnSignals } from '../../src/schemas/signals.js';
import { SETTLE_SECONDS, TurnHarness } from '../model/internal/turn-sut.js';

const FAILURE = { kind: 'server_error' as const, message: 'API Error: 500 Internal server error' };

function lastTurn(h: TurnHarness) {
  return h.snapshot().lastTurn;
}

describe('turn charts: priority chain (statecharts.md §5)', () => {
  it('(a) a draft over an old interrupted marker with no turn: no outcome, phase from posture', () => {
    const h = new TurnHarness();
    h.frame({ editingInput: 'yes', acceptingInput: 'yes', interrupted: true });
    expect(h.snapshot().phase).toBe('ready');
    expect(lastTurn(h).result).toBe('none');
    h.frame({
      editingInput: 'yes',
      acceptingInput: 'yes',
      knownFailure: FAILURE,
      readyPosture: 'no',
    });
    expect(h.snapshot().phase).toBe('unknown');
    expect(lastTurn(h).result).toBe('none');
    expect(h.transitions.filter((r) => r.machine === 'lastTurn')).toEqual([]);
  });

  it('(b) interrupted ends the turn: evt_interrupted, phase ready', () => {
    const h = new TurnHarness();
    h.frame({});
    const id = h.armExplicit();
    h.activeFrame();
    h.newText();
    h.frame({ interrupted: true, readyPosture: 'no' });
    expect(h.snapshot()).toMatchObject({ phase: 'ready', current: null });
    expect(lastTurn(h)).toMatchObject({
      result: 'interrupted',
      source: 'explicit_input',
      turnId: id,
      at: h.t,
    });
  });

  it('(b) beats (c) and (d): interrupted with a failure and a spinner is interrupted', () => {
    const h = new TurnHarness();
    h.activeFrame();
    h.frame({ interrupted: true, knownFailure: FAILURE, activeReasons: ['spinner'] });
    expect(lastTurn(h).result).toBe('interrupted');
  });

  it('(c) known failure: evt_known_failure, phase ready', () => {
    const h = new TurnHarness();
    h.armExplicit();
    h.newText();
    h.frame({ knownFailure: FAILURE, activeReasons: ['spinner'] });
    expect(h.snapshot().phase).toBe('ready');
    expect(lastTurn(h)).toMatchObject({ result: 'known_failure', source: 'explicit_input' });
  });

  it('(d) active evidence with no turn arms a surface_inference turn', () => {
    const h = new TurnHarness();
    h.frame({});
    h.activeFrame();
    const snap = h.snapshot();
    expect(snap.phase).toBe('active');
    expect(snap.current).toMatchObject({ source: 'surface_inference', startedAt: h.t });
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', source: 'surface_inference' });
  });

  it('(e) success needs an armed turn: a ready surface with a reply and no turn never succeeds', () => {
    const h = new TurnHarness();
    h.newText();
    h.frame({ successCandidate: true });
    h.wait(60);
    h.frame({ successCandidate: true });
    expect(lastTurn(h).result).toBe('none');
    expect(h.snapshot().phase).toBe('ready');
  });

  it('(e) success needs turn evidence: an armed turn whose screen never moved does not succeed', () => {
    const h = new TurnHarness();
    h.frame({ successCandidate: true });
    h.armExplicit();
    h.frame({ successCandidate: true });
    h.wait(60);
    expect(lastTurn(h).result).toBe('none');
    expect(h.snapshot().phase).toBe('active');
  });

  it('(e) settles after the settle window: success, explicit source, phase ready', () => {
    const h = new TurnHarness();
    const id = h.armExplicit();
    h.newText();
    h.frame({ successCandidate: true });
    const since = h.t;
    expect(h.settlingSince()).toBe(since);
    h.wait(SETTLE_SECONDS - 0.01);
    expect(lastTurn(h).result).toBe('none');
    h.wait(0.01);
    expect(lastTurn(h)).toMatchObject({ result: 'success', source: 'explicit_input', turnId: id });
    expect(lastTurn(h).at).toBeCloseTo(since + SETTLE_SECONDS, 9);
    expect(h.snapshot()).toMatchObject({ phase: 'ready', current: null });
    expect(h.settlingSince()).toBeNull();
  });

  it('(f) default: ready posture yes → ready, otherwise unknown', () => {
    const h = new TurnHarness();
    h.frame({ readyPosture: 'unknown' });
    expect(h.snapshot().phase).toBe('unknown');
    h.frame({});
    expect(h.snapshot().phase).toBe('ready');
    h.frame({ readyPosture: 'no' });
    expect(h.snapshot().phase).toBe('unknown');
  });
});

describe('turn charts: settle window', () => {
  function candidate() {
    const h = new TurnHarness();
    h.armExplicit();
    h.newText();
    h.frame({ successCandidate: true });
    return h;
  }

  it('restarts when the surface signature changes', () => {
    const h = candidate();
    h.wait(SETTLE_SECONDS / 2);
    h.newText();
    h.frame({ successCandidate: true });
    const restart = h.t;
    expect(h.settlingSince()).toBe(restart);
    h.wait(SETTLE_SECONDS - 0.01 - 0.25);
    expect(lastTurn(h).result).toBe('none');
    h.wait(0.26);
    expect(lastTurn(h).result).toBe('success');
    expect(lastTurn(h).at).toBeCloseTo(restart + SETTLE_SECONDS, 9);
  });

  it('identical frames do not restart it', () => {
    const h = candidate();
    const since = h.t;
    h.frame({ successCandidate: true });
    h.frame({ successCandidate: true });
    h.wait(SETTLE_SECONDS);
    expect(lastTurn(h).at).toBeCloseTo(since + SETTLE_SECONDS, 9);
  });

  it.each<[string, Partial<TurnSignals>, boolean]>([
    ['active evidence', { activeReasons: ['spinner'] }, true],
    ['a draft', { successCandidate: true, editingInput: 'yes' }, true],
    ['degraded diagnostics', {}, false],
  ])('is cancelled by %s', (_name, signals, available) => {
    const h = candidate();
    h.frame(signals, available);
    expect(h.settlingSince()).toBeNull();
    h.wait(10 * SETTLE_SECONDS);
    expect(lastTurn(h).result).toBe('none');
  });
});

describe('turn charts: last-turn result', () => {
  function succeeded() {
    const h = new TurnHarness();
    const id = h.armExplicit();
    h.settleSuccess();
    return { h, id };
  }

  it('is sticky: a new turn keeps the previous result until it ends', () => {
    const { h, id } = succeeded();
    h.armExplicit();
    h.activeFrame();
    expect(h.snapshot().phase).toBe('active');
    expect(lastTurn(h)).toMatchObject({ result: 'success', turnId: id });
    h.newText();
    h.frame({ knownFailure: FAILURE });
    expect(lastTurn(h).result).toBe('known_failure');
  });

  it('a new turn with the same outcome is recorded again', () => {
    const { h } = succeeded();
    const second = h.armExplicit();
    h.settleSuccess();
    const outcomes = h.transitions.filter((r) => r.machine === 'lastTurn');
    expect(outcomes.map((r) => [r.event, r.turnId])).toEqual([
      ['evt_success_settled', 'turn-1'],
      ['evt_success_settled', second],
    ]);
  });

  it('is kept when activity follows: that is a new turn, with its own id and outcome', () => {
    const { h, id } = succeeded();
    h.activeFrame();
    expect(lastTurn(h)).toMatchObject({ result: 'success', turnId: id });
    const next = h.snapshot().current!;
    expect(next).toMatchObject({ source: 'surface_inference' });
    expect(next.id).not.toBe(id);
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', turnId: next.id });
    const outcomes = h.transitions.filter((r) => r.machine === 'lastTurn');
    expect(outcomes.map((r) => [r.to, r.turnId])).toEqual([
      ['success', id],
      ['interrupted', next.id],
    ]);
  });

  it('a prompt typed by hand after a turn paneward ran is a turn of its own', () => {
    const { h, id } = succeeded();
    // The user types, submits, the agent works and is interrupted.
    h.frame({ editingInput: 'yes' });
    h.frame({ editingInput: 'yes' });
    h.text = `${h.text}\n> typed by hand`;
    h.activeFrame();
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', source: 'surface_inference' });
    expect(lastTurn(h).turnId).not.toBe(id);
    expect(
      h.turns
        .filter((t) => t.kind === 'turn.ended')
        .map((t) => t.kind === 'turn.ended' && [t.turnId, t.outcome]),
    ).toEqual([
      [id, 'success'],
      [lastTurn(h).turnId, 'interrupted'],
    ]);
  });

  it('a prompt typed by hand that fails before any activity shows is a turn with that failure', () => {
    const h = new TurnHarness();
    h.frame({});
    h.frame({ editingInput: 'yes' });
    // Enter: the draft leaves the box for the transcript; the request fails at once.
    h.text = `${h.text}\n› typed by hand`;
    h.frame({});
    const submittedAt = h.t;
    h.newText();
    h.frame({ knownFailure: FAILURE });
    expect(lastTurn(h)).toMatchObject({ result: 'known_failure', source: 'surface_inference' });
    expect(h.turns[0]).toMatchObject({ kind: 'turn.started', turn: { startedAt: submittedAt } });
  });

  it('a draft that is cleared again starts no turn', () => {
    const h = new TurnHarness();
    h.frame({ knownFailure: FAILURE });
    h.frame({ editingInput: 'yes', knownFailure: FAILURE });
    h.frame({ knownFailure: FAILURE });
    expect(lastTurn(h).result).toBe('none');
    expect(h.turns).toEqual([]);
  });

  it('is retracted when the reply is rewritten within a settle window after settling', () => {
    const { h, id } = succeeded();
    h.newText();
    h.frame({});
    expect(lastTurn(h)).toMatchObject({ result: 'none', turnId: null });
    expect(h.snapshot().current?.id).toBe(id);
    expect(h.turns.at(-1)).toMatchObject({ kind: 'turn.reopened', turn: { id } });
  });

  it('is not retracted by a change long after settling (a redraw, a cleared screen)', () => {
    const { h, id } = succeeded();
    h.wait(2 * SETTLE_SECONDS);
    h.newText();
    h.frame({});
    expect(lastTurn(h)).toMatchObject({ result: 'success', turnId: id });
  });

  it('is not retracted by a draft the user types', () => {
    const { h } = succeeded();
    h.newText();
    h.frame({ editingInput: 'yes' });
    expect(lastTurn(h).result).toBe('success');
  });
});

describe('turn charts: phase and diagnostics', () => {
  it('degraded diagnostics move the phase to unknown from ready and from active', () => {
    const h = new TurnHarness();
    h.frame({});
    h.frame({}, false);
    expect(h.snapshot().phase).toBe('unknown');
    h.activeFrame();
    expect(h.snapshot().phase).toBe('active');
    h.frame({ activeReasons: ['spinner'] }, false);
    expect(h.snapshot().phase).toBe('unknown');
  });

  it('an explicit submit makes the phase active at once', () => {
    const h = new TurnHarness();
    h.frame({});
    h.armExplicit();
    expect(h.snapshot()).toMatchObject({
      phase: 'active',
      current: { source: 'explicit_input', startedAt: h.t },
    });
  });

  // statecharts.md §4: ready --evt_posture_lost--> unknown on an "ambiguous interactive
  // surface", and unknown → ready requires "not ambiguous".
  it('an ambiguous surface loses the ready posture', () => {
    const h = new TurnHarness();
    h.frame({});
    expect(h.snapshot().phase).toBe('ready');
    h.frame({ ambiguous: true });
    expect(h.snapshot().phase).toBe('unknown');
  });
});

describe('turn charts: a turn outcome marker is its own (statecharts.md §5)', () => {
  const OTHER = { kind: 'rate_limited' as const, message: 'API Error: 429 Rate limited' };

  /** A turn ended interrupted and the screen still shows its marker; the next turn is armed. */
  function afterInterrupt() {
    const h = new TurnHarness();
    const first = h.armExplicit();
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', turnId: first });
    const second = h.armExplicit();
    return { h, first, second };
  }

  it('the marker on screen when the turn was armed does not end it, though the screen moved', () => {
    const { h, first, second } = afterInterrupt();
    h.newText();
    h.frame({ interrupted: true, editingInput: 'yes', acceptingInput: 'yes' });
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', turnId: first });
    expect(h.snapshot().current?.id).toBe(second);
  });

  it('the same marker after it went away is the turn own', () => {
    const { h, second } = afterInterrupt();
    h.newText();
    h.frame({ interrupted: true });
    h.activeFrame();
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', turnId: second });
  });

  it('another marker is the turn own at once', () => {
    const { h, second } = afterInterrupt();
    h.newText();
    h.frame({ knownFailure: OTHER });
    expect(lastTurn(h)).toMatchObject({ result: 'known_failure', turnId: second });
  });

  it('a failure with another text is another marker', () => {
    const h = new TurnHarness();
    h.armExplicit();
    h.newText();
    h.frame({ knownFailure: FAILURE });
    const second = h.armExplicit();
    h.newText();
    h.frame({ knownFailure: FAILURE });
    expect(lastTurn(h).turnId).not.toBe(second);
    h.frame({ knownFailure: { ...FAILURE, message: 'API Error: 500 again' } });
    expect(lastTurn(h)).toMatchObject({ result: 'known_failure', turnId: second });
  });

  it('a prompt typed by hand over an old marker is not ended by that marker', () => {
    const { h, second } = afterInterrupt();
    h.newText();
    h.frame({ interrupted: true });
    h.wait(60);
    const ended = h.snapshot();
    expect(ended.current).toBeNull();
    expect(ended.lastTurn.turnId).not.toBe(second);
    // The user types a prompt; it leaves the box, the screen moves, the old marker still shows.
    h.frame({ interrupted: true, editingInput: 'yes', acceptingInput: 'yes' });
    h.newText();
    h.frame({ interrupted: true });
    const hand = h.snapshot();
    expect(hand.current?.source).toBe('surface_inference');
    expect(hand.lastTurn.turnId).not.toBe(hand.current?.id);
    h.activeFrame();
    h.newText();
    h.frame({ interrupted: true });
    expect(lastTurn(h)).toMatchObject({ result: 'interrupted', turnId: hand.current!.id });
  });
});
