import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { RETRACT_SECONDS, turnPhaseMachine } from '../../machines/turnPhase.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
} from '../../src/replay/replay.js';
import { STALE_SECONDS, TurnHarness } from '../model/internal/turn-sut.js';

const FAILURE = { kind: 'server_error' as const, message: 'API Error: 500 Internal server error' };

/** An explicit turn that worked and then left its reply at an idle prompt (no success marker). */
function idleAfterWork() {
  const h = new TurnHarness();
  h.frame({});
  const id = h.armExplicit();
  h.activeFrame();
  h.newText();
  h.frame({});
  return { h, id, idleSince: h.t };
}

describe('stale active recovery: an open turn at an unchanged idle prompt ends with no outcome', () => {
  it('ends exactly one stale-active window after the idle prompt appeared, not before', () => {
    const { h, id, idleSince } = idleAfterWork();
    h.frame({});
    h.wait(idleSince + STALE_SECONDS - 0.001 - h.t);
    expect(h.snapshot()).toMatchObject({ phase: 'active', current: { id } });
    h.wait(0.001);
    expect(h.snapshot()).toMatchObject({ phase: 'ready', current: null });
    // Never a success: the last-turn chart is untouched, the turn ends with outcome none.
    expect(h.snapshot().lastTurn).toEqual({
      result: 'none',
      source: 'none',
      turnId: null,
      at: null,
    });
    expect(h.transitions.filter((r) => r.machine === 'lastTurn')).toEqual([]);
    expect(h.turns.at(-1)).toEqual({
      kind: 'turn.ended',
      t: idleSince + STALE_SECONDS,
      turnId: id,
      source: 'explicit_input',
      outcome: 'none',
    });
    // Recorded with its rule.
    expect(h.transitions.at(-1)).toMatchObject({
      machine: 'turnPhase',
      from: 'active',
      to: 'ready',
      event: 'evt_turn_finished',
      rule: 'stale_active_recovery',
      turnId: id,
    });
  });

  it('a change of the screen restarts the window', () => {
    const { h, idleSince } = idleAfterWork();
    h.wait(idleSince + STALE_SECONDS - 0.5 - h.t);
    h.newText();
    h.frame({});
    const changedAt = h.t;
    h.wait(changedAt + STALE_SECONDS - 0.001 - h.t);
    expect(h.snapshot().phase).toBe('active');
    h.wait(0.001);
    expect(h.snapshot().phase).toBe('ready');
  });

  it('a change of the signals alone (the chat context) restarts it too', () => {
    const { h, idleSince } = idleAfterWork();
    h.wait(idleSince + STALE_SECONDS - 0.5 - h.t);
    h.frame({ chatContext: 'degraded' });
    const changedAt = h.t;
    h.wait(changedAt + STALE_SECONDS - 0.001 - h.t);
    expect(h.snapshot().phase).toBe('active');
  });

  it('never fires while the screen shows activity', () => {
    const { h } = idleAfterWork();
    for (let i = 0; i < 40; i += 1) h.frame({ activeReasons: ['esc to cancel'] });
    h.wait(10 * STALE_SECONDS);
    expect(h.snapshot().phase).toBe('active');
    expect(h.turns.filter((e) => e.kind === 'turn.ended')).toEqual([]);
  });

  it('activity inside the window cancels it, even when the idle prompt comes back unchanged', () => {
    const { h, idleSince } = idleAfterWork();
    h.activeFrame();
    h.frame({});
    const backAt = h.t;
    // Counted from the prompt's return, not from the first idle frame.
    h.wait(idleSince + STALE_SECONDS + 0.1 - h.t);
    expect(h.snapshot().phase).toBe('active');
    h.wait(backAt + STALE_SECONDS - h.t);
    expect(h.snapshot().phase).toBe('ready');
  });

  it('activity cancels the window: no timer is left armed to wake the driver for nothing', () => {
    const { h } = idleAfterWork();
    expect(h.timers.has('turn.stale')).toBe(true);
    h.activeFrame();
    expect(h.timers.has('turn.stale')).toBe(false);
  });

  it('a screen that is not an idle prompt (ambiguous, no ready posture, a dialog) never ends the turn', () => {
    for (const signals of [
      { ambiguous: true },
      { readyPosture: 'no' as const },
      { readyPosture: 'unknown' as const },
    ]) {
      const { h } = idleAfterWork();
      h.frame(signals);
      h.wait(10 * STALE_SECONDS);
      expect(h.snapshot().phase, JSON.stringify(signals)).toBe('active');
    }
  });

  it('a success candidate settles as before: the settle window is shorter and wins', () => {
    const { h, id } = idleAfterWork();
    h.frame({ successCandidate: true });
    h.wait(STALE_SECONDS);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
  });

  it('a turn with no evidence of its own is left to its completion (nothing says it ran)', () => {
    const h = new TurnHarness();
    h.frame({});
    h.armExplicit();
    h.frame({});
    h.wait(10 * STALE_SECONDS);
    expect(h.snapshot().phase).toBe('active');
  });

  it('the window is the settle window plus 3 s unless given', () => {
    const at = (input: { settleSeconds?: number; staleActiveSeconds?: number }) => {
      const actor = createActor(turnPhaseMachine, { input }).start();
      const seconds = actor.getSnapshot().context.staleActiveSeconds;
      actor.stop();
      return seconds;
    };
    expect(at({})).toBe(4);
    expect(at({ settleSeconds: 5 })).toBe(8);
    expect(at({ settleSeconds: 5, staleActiveSeconds: 12 })).toBe(12);
  });
});

describe('a settled success is withdrawn by its own turn’s marker until the next turn, at most RETRACT_SECONDS', () => {
  function settled() {
    const h = new TurnHarness();
    h.frame({});
    const id = h.armExplicit();
    h.activeFrame();
    h.settleSuccess();
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
    return { h, id, settledAt: h.t };
  }

  it('an interrupt marker of that turn inside the bound: success withdrawn, interrupted', () => {
    const { h, id, settledAt } = settled();
    h.wait(settledAt + RETRACT_SECONDS - 0.25 - h.t - 0.25);
    h.newText();
    h.frame({ interrupted: true });
    expect(h.t).toBeLessThanOrEqual(settledAt + RETRACT_SECONDS);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'interrupted', turnId: id });
    expect(h.snapshot().phase).toBe('ready');
    const last = h.transitions.filter((r) => r.machine === 'lastTurn').slice(-2);
    expect(last).toMatchObject([
      { from: 'success', to: 'none', event: 'evt_success_retracted', rule: 'retract_disproved' },
      { from: 'none', to: 'interrupted', event: 'evt_interrupted', turnId: id },
    ]);
  });

  it('a failure marker exactly at the bound: withdrawn, known_failure (the same turn)', () => {
    const { h, id, settledAt } = settled();
    h.wait(settledAt + RETRACT_SECONDS - 0.25 - h.t);
    h.frame({ knownFailure: FAILURE });
    expect(h.t).toBeCloseTo(settledAt + RETRACT_SECONDS, 9);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'known_failure', turnId: id });
  });

  it('a marker after the bound leaves the success standing', () => {
    const { h, id, settledAt } = settled();
    h.wait(settledAt + RETRACT_SECONDS - h.t);
    h.frame({ interrupted: true });
    expect(h.t).toBeGreaterThan(settledAt + RETRACT_SECONDS);
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
    expect(h.snapshot().phase).toBe('ready');
  });

  it('once the next turn started, a marker is that turn’s: the success stands', () => {
    const { h, id } = settled();
    const next = h.armExplicit();
    h.activeFrame();
    h.newText();
    h.frame({ interrupted: true });
    const results = h.transitions
      .filter((r) => r.machine === 'lastTurn')
      .map((r) => [r.event, r.turnId]);
    expect(results).toEqual([
      ['evt_success_settled', id],
      ['evt_interrupted', next],
    ]);
  });

  it('a marker under a draft the user types is stale, not this turn’s', () => {
    const { h, id } = settled();
    h.frame({ editingInput: 'yes', interrupted: true });
    expect(h.snapshot().lastTurn).toMatchObject({ result: 'success', turnId: id });
  });
});

describe('stale active recovery on a real Cline recording (its replies leave no end marker)', () => {
  it('the turn ends ready with no outcome, and the journal records the rule', async () => {
    const rec = parseRecording(readJsonLines('test/fixtures/cline/normal-turn.jsonl'));
    const { pipeline, clock } = pipelineFor(rec);
    try {
      playRecording(rec, pipeline, clock);
      expect(pipeline.state.turn).toMatchObject({ phase: 'ready', current: null });
      expect(pipeline.state.lastTurn.result).toBe('none');
      await pipeline.journal.flush();
      const records = pipeline.journal.read();
      const ended = records.find((r) => r.kind === 'turn.ended');
      expect(ended).toMatchObject({ turnId: 'turn-1', outcome: 'none' });
      const state = records.find(
        (r) => r.kind === 'state' && r.changed['turn.phase'] === 'ready' && r.t === ended!.t,
      );
      expect(state).toMatchObject({
        transitions: [
          {
            machine: 'turnPhase',
            from: 'active',
            to: 'ready',
            event: 'evt_turn_finished',
            rule: 'stale_active_recovery',
            turnId: 'turn-1',
          },
        ],
      });
      // One window (the settle window + 3 s) after the idle prompt with the reply appeared.
      const idle = records.find(
        (r) => r.kind === 'state' && r.changed['completion.status'] === 'candidate_complete',
      ) as { t: number } | undefined;
      expect(ended!.t - idle!.t).toBeCloseTo(4, 6);
    } finally {
      pipeline.dispose();
    }
  });
});
