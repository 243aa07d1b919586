/**
 * What the witness chart notes and tells (docs/witness.md), on the chart itself: the record
 * found and lost, a screen-alone outcome a marker confirms within the window (and only within
 * it), the held success released on the screen's word, and the disagreement a marker's late
 * ending reports. Each beside its neighbour one fact away.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  witnessMachine,
  type RecordPiece,
  type WitnessConfig,
  type WitnessRequest,
  type WitnessScreen,
} from '../../machines/witness.js';

const BOTH: WitnessConfig = { authority: 'both', windowSeconds: 3 };
const TURN = { id: 'turn-1', startedAt: 10 };

const screen = (o: Partial<WitnessScreen> = {}): WitnessScreen => ({
  turn: TURN,
  lastStartedAt: TURN.startedAt,
  phase: 'active',
  settling: false,
  evidence: true,
  frame: null,
  ...o,
});
const after = screen({ turn: null, phase: 'ready' });

function witness(config: WitnessConfig = BOTH) {
  const actor = createActor(witnessMachine, { input: { config } }).start();
  const told: WitnessRequest[] = [];
  actor.on('*', (e) => told.push(e as WitnessRequest));
  const ctx = () => actor.getSnapshot().context;
  return {
    actor,
    told,
    ctx,
    state: () => String(actor.getSnapshot().value),
    found(available: boolean, t = 5, s = screen()) {
      actor.send({ type: 'record_available', t, available, screen: s });
    },
    piece(event: RecordPiece, t: number, s = screen()) {
      actor.send({ type: 'record_event', t, event, screen: s });
    },
    of: <K extends WitnessRequest['type']>(type: K) =>
      told.filter((e): e is Extract<WitnessRequest, { type: K }> => e.type === type),
  };
}

const start = (atMs: number): RecordPiece => ({
  type: 'turn_started',
  event: 'prompt',
  position: { file: 'r.jsonl', offset: 0 },
  atMs,
});
const end = (reason: 'success' | 'interrupted', atMs: number): RecordPiece => ({
  type: 'turn_ended',
  event: 'end',
  ending: { reason },
  position: { file: 'r.jsonl', offset: 9 },
  atMs,
});

describe('the record found and lost', () => {
  it('found: followed and seen; lost: no longer followed, still seen, its turn dropped', () => {
    const w = witness();
    w.found(true);
    expect(w.ctx()).toMatchObject({ recordLive: true, recordSeen: true });
    w.piece(start(10_500), 10.5);
    expect(w.ctx().markers.record).not.toBeNull();
    w.found(false);
    expect(w.ctx()).toMatchObject({ recordLive: false, recordSeen: true });
    expect(w.ctx().markers.record).toBeNull();
  });
});

describe('a screen-alone outcome a marker confirms', () => {
  /** The screen ended turn-1 interrupted at t = 12 with no marker; then the record says so at `t`. */
  function screenDecided(t: number, reason: 'success' | 'interrupted' = 'interrupted', s = after) {
    const w = witness();
    w.found(true);
    w.actor.send({
      type: 'outcome',
      reason: 'interrupted',
      startedAt: 10,
      at: 12,
      decidedBy: null,
    });
    expect(w.ctx().lastWitness).toBe('surface');
    expect(w.ctx().screenOnly).toEqual({ startedAt: 10, reason: 'interrupted', at: 12 });
    w.piece(start(10_200), t - 0.1, s);
    w.piece(end(reason, t * 1000), t, s);
    return w;
  }

  it('the same ending within the window: both witnessed it', () => {
    expect(screenDecided(14).ctx().lastWitness).toBe('both');
    expect(screenDecided(15).ctx().lastWitness).toBe('both');
  });
  it('after the window: the screen’s alone', () => {
    expect(screenDecided(15.01).ctx().lastWitness).toBe('surface');
  });
  it('another ending: the screen’s alone', () => {
    expect(screenDecided(14, 'success').ctx().lastWitness).toBe('surface');
  });
  it('while a new turn is open it is that turn’s word, not the last one’s', () => {
    const w = screenDecided(14, 'interrupted', screen({ turn: { id: 'turn-2', startedAt: 13.5 } }));
    expect(w.ctx().lastWitness).toBe('surface');
    expect(w.ctx().screenOnly).toBeNull();
  });
  it('an outcome another witness decided leaves nothing for the screen to be confirmed in', () => {
    const w = witness();
    w.actor.send({
      type: 'outcome',
      reason: 'success',
      startedAt: 10,
      at: 12,
      decidedBy: 'record',
    });
    expect(w.ctx()).toMatchObject({ lastWitness: 'record', screenOnly: null });
  });
});

describe('a held success', () => {
  /** The screen's success settled while the record's turn is open: held, the window running. */
  function held() {
    const w = witness();
    w.found(true);
    w.piece(start(10_300), 10.3);
    w.actor.send({ type: 'settle_elapsed', t: 12, screen: screen({ settling: true }) });
    expect(w.state()).toBe('holding');
    expect(w.of('window.start')).toEqual([{ type: 'window.start', due: 15 }]);
    return w;
  }

  it('the window runs out with the record still open: the screen’s success goes ahead, and the disagreement says the record was open', () => {
    const w = held();
    w.actor.send({ type: 'window_elapsed', t: 15, screen: screen({ phase: 'active' }) });
    expect(w.state()).toBe('watching');
    expect(w.of('disagreement')).toEqual([
      {
        type: 'disagreement',
        disagreement: {
          t: 15,
          turnId: 'turn-1',
          record: 'open',
          screen: { phase: 'active', successCandidate: true },
          decided: 'surface',
          evidence: null,
        },
      },
    ]);
    expect(w.of('verdict')).toEqual([
      { type: 'verdict', t: 15, by: 'surface', send: { type: 'settle_window_elapsed' } },
    ]);
  });

  it('the record’s success while it holds: both decide, and the success is marked witnessed', () => {
    const w = held();
    w.piece(end('success', 13_000), 13, screen({ settling: true }));
    expect(w.state()).toBe('watching');
    expect(w.of('verdict')).toEqual([
      {
        type: 'verdict',
        t: 13,
        by: 'both',
        send: { type: 'settle_window_elapsed', witnessed: true },
      },
    ]);
  });

  it('with no marker turn the screen settles alone, unwitnessed', () => {
    const w = witness();
    w.actor.send({ type: 'settle_elapsed', t: 12, screen: screen({ settling: true }) });
    expect(w.of('verdict')).toEqual([
      { type: 'verdict', t: 12, by: null, send: { type: 'settle_window_elapsed' } },
    ]);
  });

  it('a record that cannot tell a success leaves the screen’s success unwitnessed', () => {
    const w = witness({ ...BOTH, endings: ['interrupted', 'known_failure'] });
    w.found(true);
    w.piece(start(10_300), 10.3);
    w.actor.send({ type: 'settle_elapsed', t: 12, screen: screen({ settling: true }) });
    expect(w.of('verdict')).toEqual([
      { type: 'verdict', t: 12, by: 'surface', send: { type: 'settle_window_elapsed' } },
    ]);
  });

  it('the record lost while it holds: released on the screen’s word', () => {
    const w = held();
    w.found(false, 13);
    expect(w.state()).toBe('watching');
    expect(w.of('verdict').map((v) => v.by)).toEqual(['surface']);
  });

  it('with no turn open any more there is no disagreement to report', () => {
    const w = held();
    w.found(false, 13, after);
    expect(w.of('disagreement')).toEqual([]);
    expect(w.of('verdict').map((v) => v.by)).toEqual(['surface']);
  });
});

describe('a marker’s ending the screen did not show', () => {
  function disagreeing() {
    const w = witness();
    w.found(true);
    w.piece(start(10_300), 10.3);
    w.piece(end('interrupted', 11_000), 11);
    expect(w.state()).toBe('disagreeing');
    return w;
  }

  it('decides when the window runs out, reporting whether the screen’s candidate settled', () => {
    for (const settling of [false, true]) {
      const w = disagreeing();
      w.actor.send({ type: 'window_elapsed', t: 14, screen: screen({ settling }) });
      const d = w.of('disagreement')[0]?.disagreement;
      expect(d).toMatchObject({
        record: 'interrupted',
        decided: 'record',
        screen: { phase: 'active', successCandidate: settling },
        evidence: { file: 'r.jsonl', offset: 9, event: 'end' },
      });
      expect(w.of('verdict')).toEqual([
        {
          type: 'verdict',
          t: 14,
          by: 'record',
          send: { type: 'record_outcome', outcome: 'evt_interrupted' },
        },
      ]);
      expect(w.of('window.cancel').length).toBeGreaterThan(0);
    }
  });

  it('with the turn gone before the window ran out, nothing is decided', () => {
    const w = disagreeing();
    w.actor.send({ type: 'window_elapsed', t: 14, screen: after });
    expect(w.of('verdict')).toEqual([]);
    expect(w.state()).toBe('watching');
  });
});
