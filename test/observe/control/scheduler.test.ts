import { describe, expect, it } from 'vitest';
import {
  nextBudget,
  planTick,
  urgentBatch,
  type Schedulable,
  type TickInput,
} from '../../../src/observe/control/scheduler.js';

type Pane = Schedulable & { name: string };
const pane = (name: string, over: Partial<Schedulable> = {}): Pane => ({
  name,
  paneId: `%${name}`,
  dirty: false,
  dirtySince: 0,
  urgent: false,
  inFlight: false,
  lastCaptureAt: 0,
  ...over,
});
const input = (over: Partial<TickInput> = {}): TickInput => ({
  now: 10_000,
  chores: false,
  intervalMs: 500,
  tickMs: 125,
  recaptureMs: 60_000,
  budget: Infinity,
  paused: new Set(),
  ...over,
});
const names = (ps: Pane[]): string[] => ps.map((p) => p.name);

describe('planTick: from watches and time to the next batch', () => {
  it('captures a changed pane at most once per interval, on the tick nearest its turn', () => {
    const ps = [
      pane('a', { dirty: true, lastCaptureAt: 10_000 - 437.5 }),
      pane('b', { dirty: true, lastCaptureAt: 10_000 - 437 }),
      pane('c', { lastCaptureAt: 0 }),
    ];
    expect(names(planTick(ps, input()).chosen)).toEqual(['a']);
  });

  it('takes urgent panes first and always, then the longest waiting, within the budget', () => {
    const ps = [
      pane('late', { dirty: true, dirtySince: 50 }),
      pane('early', { dirty: true, dirtySince: 10 }),
      pane('u1', { urgent: true }),
      pane('u2', { urgent: true }),
      pane('u3', { urgent: true }),
      pane('busy', { dirty: true, inFlight: true }),
    ];
    expect(names(planTick(ps, input()).chosen)).toEqual(['u1', 'u2', 'u3', 'early', 'late']);
    expect(names(planTick(ps, input({ budget: 4 })).chosen)).toEqual(['u1', 'u2', 'u3', 'early']);
    expect(names(planTick(ps, input({ budget: 1 })).chosen)).toEqual(['u1', 'u2', 'u3']);
  });

  it('captures a paused (flooding) pane every interval though no output is marked', () => {
    const ps = [pane('f'), pane('q')];
    expect(names(planTick(ps, input({ paused: new Set(['%f']) })).chosen)).toEqual(['f']);
  });

  it('re-captures quiet panes only on a chores tick, oldest first, a share per tick', () => {
    const ps = Array.from({ length: 300 }, (_, i) => pane(`p${i}`, { lastCaptureAt: -i }));
    expect(planTick(ps, input({ now: 70_000 })).chosen).toEqual([]);
    const plan = planTick(ps, input({ now: 70_000, chores: true }));
    // 300 panes * 500 ms / 60 s = 2.5, so 3 per interval, twice that per tick.
    expect(names(plan.refreshed)).toEqual(['p299', 'p298', 'p297', 'p296', 'p295', 'p294']);
    expect(plan.chosen).toEqual(plan.refreshed);
    // Not yet due: nothing.
    expect(planTick(ps, input({ now: 50_000, chores: true })).chosen).toEqual([]);
  });

  it('sheds quiet panes first: they only take the room the budget leaves', () => {
    const ps = [
      pane('d1', { dirty: true }),
      pane('d2', { dirty: true }),
      pane('q1', { lastCaptureAt: -1 }),
      pane('q2', { lastCaptureAt: -2 }),
    ];
    const at = { now: 70_000, chores: true };
    expect(names(planTick(ps, input({ ...at, budget: 3 })).chosen)).toEqual(['d1', 'd2', 'q2']);
    expect(names(planTick(ps, input({ ...at, budget: 2 })).chosen)).toEqual(['d1', 'd2']);
  });

  it('urgentBatch: the urgent panes not in flight', () => {
    const ps = [
      pane('a', { urgent: true }),
      pane('b', { urgent: true, inFlight: true }),
      pane('c'),
    ];
    expect(names(urgentBatch(ps))).toEqual(['a']);
  });
});

describe('nextBudget', () => {
  const base = {
    budget: Infinity,
    batch: 100,
    tookMs: 100,
    lateMs: 0,
    intervalMs: 500,
    panes: 400,
  };
  it('keeps an unlimited budget while batches take under half an interval', () => {
    expect(nextBudget(base)).toBe(Infinity);
  });
  it('shrinks to what fits half an interval, never below 8', () => {
    expect(nextBudget({ ...base, tookMs: 1000 })).toBe(25);
    expect(nextBudget({ ...base, batch: 10, tookMs: 5000 })).toBe(8);
    expect(nextBudget({ ...base, lateMs: 2000 })).toBe(12);
  });
  it('grows by half when batches are quick, and unlimited once it covers every pane', () => {
    expect(nextBudget({ ...base, budget: 100, tookMs: 50 })).toBe(150);
    expect(nextBudget({ ...base, budget: 300, tookMs: 50 })).toBe(Infinity);
    expect(nextBudget({ ...base, budget: 100, tookMs: 200 })).toBe(100);
  });
});
