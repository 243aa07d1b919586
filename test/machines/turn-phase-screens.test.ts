import { describe, expect, it } from 'vitest';
import { screenPrint } from '../../machines/turnPhase.frames.js';
import { IDLE, ACTIVE, SUCCESS, DRAFT, chart, workedTurn } from './internal/turn-phase-chart.js';

describe('turn phase: a settled success rewritten within one settle window is retracted', () => {
  /** Turn u1 settled on reply R1 at t = 2.5, ready. */
  const settled = () => {
    const c = workedTurn();
    c.frame(SUCCESS, 'R1');
    c.elapse();
    expect(c.outcomes()).toHaveLength(1);
    return c;
  };

  it('the same reply again is no rewrite', () => {
    const c = settled();
    c.frame(SUCCESS, 'R1');
    expect(c.outcomes()).toHaveLength(1);
  });

  it('a rewrite exactly one window later retracts it and the same turn settles again', () => {
    const c = settled();
    c.actor.send({
      type: 'frame',
      t: 3.5,
      available: true,
      signals: { ...IDLE, ...SUCCESS },
      projection: 'R2',
      inferredTurnId: 'x',
    });
    expect(c.outcomes().at(-1)).toEqual({
      type: 'outcome',
      outcome: 'evt_success_retracted',
      turnId: 'u1',
      source: 'explicit_input',
      startedAt: 1,
      at: 3.5,
      rule: 'retract_rewritten',
    });
    // The turn goes on: the rewritten reply is its candidate now.
    expect(c.of('settle_window.start')).toHaveLength(2);
    c.actor.send({ type: 'settle_window_elapsed', t: 4.5 });
    expect(c.outcomes().at(-1)).toMatchObject({ outcome: 'evt_success_settled', turnId: 'u1' });
  });

  it('a rewrite later than one window is not retracted', () => {
    const c = settled();
    c.actor.send({
      type: 'frame',
      t: 3.75,
      available: true,
      signals: { ...IDLE, ...SUCCESS },
      projection: 'R2',
      inferredTurnId: 'x',
    });
    expect(c.outcomes()).toHaveLength(1);
  });

  it('a marker after a prompt typed by hand is that prompt’s outcome, not a disproof of the settled success', () => {
    const c = settled();
    c.frame(DRAFT, 'R1');
    c.frame({ interrupted: true }, 'R1 > typed');
    // Within the settle window of u1's success, but the marker is the typed prompt's.
    expect(c.t).toBeLessThanOrEqual(2.5 + 1);
    expect(c.outcomes().map((o) => [o.outcome, o.turnId])).toEqual([
      ['evt_success_settled', 'u1'],
      ['evt_interrupted', 'inferred-5'],
    ]);
  });

  it('the reopened turn never worked: its old transcript back under a draft is no withdrawal', () => {
    const c = settled();
    c.frame(IDLE, 'R2');
    expect(c.outcomes()).toHaveLength(2);
    c.frame(DRAFT, 'R1');
    expect(c.outcomes()).toHaveLength(2);
    expect(c.actor.getSnapshot().context.current?.id).toBe('u1');
  });
});

describe('turn phase: prompts typed by hand', () => {
  it('a submitted draft whose outcome shows is a turn from when it was submitted', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P0 > typed');
    c.frame(SUCCESS, 'P0 > typed reply');
    expect(c.of('turn_started')).toEqual([
      {
        type: 'turn_started',
        turn: { id: 'inferred-3', source: 'surface_inference', startedAt: 1 },
      },
    ]);
    expect(c.of('settle_window.start')).toHaveLength(1);
  });

  it('no turn while nothing shows its outcome', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P0 > typed');
    c.frame(IDLE, 'P0 > typed');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a new draft drops the prompt pending', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(DRAFT, 'P1');
    c.frame(SUCCESS, 'P1');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a transcript that changes with no draft before is no prompt typed by hand', () => {
    const c = chart();
    c.frame(IDLE, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(SUCCESS, 'P2');
    expect(c.of('turn_started')).toEqual([]);
  });

  it('a transcript back to before the draft left drops the prompt pending: no turn, no outcome', () => {
    const c = chart();
    c.frame(DRAFT, 'P0');
    c.frame(IDLE, 'P1');
    c.frame(SUCCESS, 'P0');
    expect(c.of('turn_started')).toEqual([]);
    expect(c.of('settle_window.start')).toEqual([]);
    expect(c.phase()).toBe('ready');
  });

  it('a draft cleared over an old marker, then a torn frame, infers no turn that cannot end', () => {
    // Qwen Code puts an interrupted prompt back in its box; paneward clears it. A frame caught
    // mid-redraw (the marker missing) and then the whole screen again must not read as a prompt
    // typed by hand whose outcome is the old marker: that turn would have no evidence of its own.
    const c = chart();
    const INTERRUPTED = { interrupted: true };
    c.frame(IDLE, 'P0');
    c.arm('u1');
    c.frame(ACTIVE, 'P0 > prompt');
    c.frame({ ...INTERRUPTED, editingInput: 'yes' }, 'P0 > prompt cancelled');
    expect(c.outcomes()).toMatchObject([{ outcome: 'evt_interrupted', turnId: 'u1' }]);
    c.frame(IDLE, 'P0 > prompt');
    c.frame(INTERRUPTED, 'P0 > prompt cancelled');
    c.frame(INTERRUPTED, 'P0 > prompt cancelled');
    expect(c.of('turn_started').map((e) => e.turn.id)).toEqual(['u1']);
    expect(c.phase()).toBe('ready');
  });

  it('a draft typed and sent while a turn is open belongs to that turn', () => {
    const c = workedTurn();
    c.frame(DRAFT, 'P0 > prompt reply');
    c.frame(SUCCESS, 'P0 > prompt reply > more');
    expect(c.of('turn_started').map((e) => e.turn.id)).toEqual(['u1']);
    expect(c.of('settle_window.start')).toHaveLength(1);
    c.elapse();
    expect(c.outcomes()).toMatchObject([{ outcome: 'evt_success_settled', turnId: 'u1' }]);
  });
});

describe('turn phase: what the chart keeps of screens gone by', () => {
  it('lets the armed screen go once the projection changed, and keeps its print for a withdrawal', () => {
    const c = chart();
    const armed = 'P0 '.repeat(500);
    c.frame(IDLE, armed);
    c.arm('u1');
    expect(c.actor.getSnapshot().context.evidence).toMatchObject({
      projectionAtArm: armed,
      printAtArm: null,
    });
    c.frame(ACTIVE, `${armed} > prompt`);
    const ev = c.actor.getSnapshot().context.evidence!;
    expect(ev.projectionAtArm).toBeNull();
    expect(ev.printAtArm).toBe(screenPrint(armed));
    expect(JSON.stringify(ev)).not.toContain('P0');
    // A copy of the armed screen (another string, the same text) under a draft: withdrawn.
    c.frame(DRAFT, armed.slice(0, 3) + armed.slice(3));
    expect(c.outcomes()).toEqual([
      expect.objectContaining({ outcome: 'evt_interrupted', rule: 'b_turn_withdrawn' }),
    ]);
  });

  it('keeps a settled success as a print, and still tells its rewrite', () => {
    const c = workedTurn();
    const reply = 'P0 > prompt reply '.repeat(100);
    c.frame(SUCCESS, reply);
    c.elapse();
    const settled = c.actor.getSnapshot().context.settled!;
    expect(settled.print).toBe(screenPrint(reply));
    expect(JSON.stringify(c.actor.getSnapshot().context.settled)).not.toContain('reply');
    c.frame(IDLE, reply);
    expect(c.outcomes()).toHaveLength(1);
    c.frame(IDLE, `${reply}more`);
    expect(c.outcomes().map((o) => o.outcome)).toEqual([
      'evt_success_settled',
      'evt_success_retracted',
    ]);
  });

  it('prints equal texts alike and tells apart texts that differ in one place', () => {
    const base = 'x'.repeat(7200);
    expect(screenPrint(base)).toBe(screenPrint('x'.repeat(7200)));
    const prints = new Set([screenPrint(base), screenPrint('')]);
    for (let i = 0; i < base.length; i += 37) {
      for (const ch of ['y', '\u2500', 'X']) {
        prints.add(screenPrint(base.slice(0, i) + ch + base.slice(i + 1)));
      }
    }
    // Two swapped characters, and the same text one shorter.
    prints.add(screenPrint('ab' + base.slice(2)));
    prints.add(screenPrint('ba' + base.slice(2)));
    prints.add(screenPrint(base.slice(1)));
    expect(prints.size).toBe(2 + Math.ceil(base.length / 37) * 3 + 3);
  });
});
