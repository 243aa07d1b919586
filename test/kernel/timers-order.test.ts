import { describe, expect, it } from 'vitest';
import { TimerOrder, Timers } from '../../src/kernel/timers.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { ManualScheduler } from './internal/manual-scheduler.js';

function manual(originMs = 0) {
  const scheduler = new ManualScheduler();
  scheduler.ms = originMs;
  const timers = new Timers(scheduler, originMs);
  const fired: Array<[string, number]> = [];
  const add = (key: string, due: number, order = 0) =>
    timers.set(key, due, order, (t) => fired.push([key, t]));
  return { scheduler, timers, fired, add };
}

describe('Timers: the clock and the wake-up', () => {
  it('now() is seconds since the origin on the scheduler clock', () => {
    const { scheduler, timers } = manual(10_000);
    expect(timers.now()).toBe(0);
    scheduler.ms = 12_500;
    expect(timers.now()).toBe(2.5);
    scheduler.ms = 9_000;
    expect(timers.now()).toBe(-1);
  });

  it('asks for one wake-up, at the earliest deadline (seconds after the origin)', () => {
    const { scheduler, add } = manual(10_000);
    expect(scheduler.pending).toEqual([]);
    add('a', 3);
    expect(scheduler.pending).toEqual([13_000]);
    add('b', 1);
    expect(scheduler.pending).toEqual([11_000]);
    add('c', 7);
    expect(scheduler.pending).toEqual([11_000]);
  });

  it('clearing timers moves the wake-up; clearing the last leaves nothing scheduled', () => {
    const { scheduler, timers, add } = manual();
    add('a', 3);
    add('b', 1);
    timers.clear('b');
    expect(scheduler.pending).toEqual([3_000]);
    timers.clear('a');
    // A pending wake-up of a live scheduler would keep the process alive for nothing.
    expect(scheduler.pending).toEqual([]);
  });

  it('a deadline already past is woken at once, never in the past', () => {
    const { scheduler, add } = manual();
    scheduler.ms = 5_000;
    add('late', 1);
    expect(scheduler.pending).toEqual([5_000]);
  });

  it('a late wake-up fires every timer due by then, in order, each at its own deadline', () => {
    const { scheduler, fired, add } = manual();
    add('b', 2);
    add('a', 1);
    add('c', 10);
    scheduler.runNext(5_000);
    expect(fired).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(scheduler.pending).toEqual([10_000]);
  });

  it('a wake-up run a little early (host timers may fire a millisecond early) still fires its deadline', () => {
    const { scheduler, fired, add } = manual();
    add('a', 1);
    add('b', 1.5);
    scheduler.runNext(999);
    expect(fired).toEqual([['a', 1]]);
    expect(scheduler.pending).toEqual([1_500]);
  });

  it('timers set while firing get their wake-up once firing is over', () => {
    const { scheduler, timers, fired, add } = manual();
    timers.set('first', 1, 0, (t) => {
      fired.push(['first', t]);
      add('later', t + 10);
    });
    timers.advanceTo(1);
    expect(scheduler.pending).toEqual([11_000]);
    scheduler.runNext(11_000);
    expect(fired).toEqual([
      ['first', 1],
      ['later', 11],
    ]);
    expect(scheduler.pending).toEqual([]);
  });
});

describe('Timers: order and inclusive deadlines', () => {
  it('equal deadline and order: the timer set first fires first', () => {
    const { timers, fired, add } = manual();
    add('a', 5, 1);
    add('b', 5, 1);
    add('c', 5, 1);
    timers.advanceTo(5);
    expect(fired.map(([k]) => k)).toEqual(['a', 'b', 'c']);
  });

  it('a timer set again goes behind those set since, at the same deadline and order', () => {
    const { timers, fired, add } = manual();
    add('a', 5, 1);
    add('b', 5, 1);
    add('a', 5, 1);
    timers.advanceTo(5);
    expect(fired.map(([k]) => k)).toEqual(['b', 'a']);
  });

  it('a re-armed timer keeps its place in the tie-break order', () => {
    const { timers, fired, add } = manual();
    add('readiness.stall', 5, TimerOrder.readinessStall);
    add('completion.stall', 5, TimerOrder.completionStall);
    add('readiness.stall', 5, TimerOrder.readinessStall);
    timers.advanceTo(5);
    expect(fired.map(([k]) => k)).toEqual(['readiness.stall', 'completion.stall']);
  });

  it('the order only breaks ties: an earlier deadline fires first whatever its order', () => {
    const { timers, fired, add } = manual();
    add('late-first-in-order', 2, 0);
    add('early-last-in-order', 1, 5);
    timers.advanceTo(2);
    expect(fired).toEqual([
      ['early-last-in-order', 1],
      ['late-first-in-order', 2],
    ]);
  });

  it('a deadline computed a hair past t by float arithmetic is still due at t', () => {
    const { timers, fired, add } = manual();
    // An unknown run starting at 0.1 with a 0.2 s timeout: 0.1 + 0.2 = 0.30000000000000004.
    add('stall', 0.1 + 0.2);
    timers.advanceTo(0.3);
    expect(fired).toEqual([['stall', 0.1 + 0.2]]);
  });

  it('the slack is a nanosecond: within it a timer is due, a microsecond later it is not', () => {
    const { timers, fired, add } = manual();
    add('within', 1 + 1e-9);
    add('after', 1 + 1e-6);
    timers.advanceTo(1);
    expect(fired.map(([k]) => k)).toEqual(['within']);
  });

  it('a timer handler runs to its end before the next timer fires, even if it moves time', () => {
    const { timers } = manual();
    const seen: string[] = [];
    timers.set('a', 1, 0, () => {
      seen.push('a:start');
      timers.advanceTo(10);
      seen.push('a:end');
    });
    timers.set('b', 2, 0, () => seen.push('b'));
    timers.advanceTo(10);
    expect(seen).toEqual(['a:start', 'a:end', 'b']);
  });
});

describe('Timers: fired listeners and dispose', () => {
  it('tells listeners after each timer fired, with its deadline, until they unsubscribe', () => {
    const { timers, add } = manual();
    const seen: string[] = [];
    timers.set('a', 1, 0, () => seen.push('fire a'));
    add('b', 2);
    add('c', 3);
    const off = timers.onFired((due) => {
      seen.push(`listener ${due}`);
      if (due === 2) off();
    });
    timers.advanceTo(3);
    expect(seen).toEqual(['fire a', 'listener 1', 'listener 2']);
  });

  it('dispose drops every timer, listener and wake-up', () => {
    const { scheduler, timers, fired, add } = manual();
    const heard: number[] = [];
    timers.onFired((due) => heard.push(due));
    add('a', 1);
    timers.dispose();
    expect(timers.has('a')).toBe(false);
    expect(scheduler.pending).toEqual([]);
    timers.advanceTo(5);
    expect(fired).toEqual([]);
    add('b', 6);
    timers.advanceTo(6);
    expect(fired).toEqual([['b', 6]]);
    expect(heard).toEqual([]);
  });
});

describe('VirtualClock', () => {
  it('runs a wake-up due exactly at t, including one a float hair past it', () => {
    const clock = new VirtualClock();
    const timers = new Timers(clock.scheduler);
    const fired: number[] = [];
    timers.set('a', 0.1 + 0.2, 0, (t) => fired.push(t));
    clock.advanceTo(0.29);
    expect(fired).toEqual([]);
    clock.advanceTo(0.3);
    expect(fired).toEqual([0.1 + 0.2]);
  });

  it('runs nothing due a millisecond after t', () => {
    const clock = new VirtualClock();
    const timers = new Timers(clock.scheduler);
    const fired: number[] = [];
    timers.set('a', 2.001, 0, (t) => fired.push(t));
    clock.advanceTo(2);
    expect(fired).toEqual([]);
    clock.advanceTo(2.001);
    expect(fired).toEqual([2.001]);
  });
});
