import { describe, expect, it } from 'vitest';
import { TimerOrder, Timers } from '../../src/kernel/timers.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';

function setup() {
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const fired: Array<[string, number]> = [];
  const add = (key: string, due: number, order: number) =>
    timers.set(key, due, order, (t) => fired.push([key, t]));
  return { clock, timers, fired, add };
}

describe('Timers', () => {
  it('fires earliest first, each with its own deadline as its time', () => {
    const { timers, fired, add } = setup();
    add('c', 3, 0);
    add('a', 1, 2);
    add('b', 2, 1);
    timers.advanceTo(10);
    expect(fired).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('breaks ties readiness stall < completion stall < stability, whatever the insertion order', () => {
    const { timers, fired, add } = setup();
    add('stability', 5, TimerOrder.completionStability);
    add('completion.stall', 5, TimerOrder.completionStall);
    add('readiness.stall', 5, TimerOrder.readinessStall);
    timers.advanceTo(5);
    expect(fired.map(([k]) => k)).toEqual(['readiness.stall', 'completion.stall', 'stability']);
    expect(TimerOrder.readinessStall).toBeLessThan(TimerOrder.completionStall);
    expect(TimerOrder.completionStall).toBeLessThan(TimerOrder.completionStability);
  });

  it('deadlines are inclusive', () => {
    const { timers, fired, add } = setup();
    add('x', 2.5, 0);
    timers.advanceTo(2.4999);
    expect(fired).toEqual([]);
    timers.advanceTo(2.5);
    expect(fired).toEqual([['x', 2.5]]);
  });

  it('fires timers set while firing when they are due too, and keeps later ones', () => {
    const { timers, fired, add } = setup();
    timers.set('first', 1, 0, (t) => {
      fired.push(['first', t]);
      add('chained', t + 1, 0);
      add('later', t + 10, 0);
    });
    timers.advanceTo(3);
    expect(fired).toEqual([
      ['first', 1],
      ['chained', 2],
    ]);
    expect(timers.due('later')).toBe(11);
  });

  it('setting a key again replaces its deadline; clear removes it', () => {
    const { timers, fired, add } = setup();
    add('k', 1, 0);
    add('k', 4, 0);
    add('gone', 2, 0);
    timers.clear('gone');
    timers.advanceTo(3);
    expect(fired).toEqual([]);
    expect(timers.has('k')).toBe(true);
    timers.advanceTo(4);
    expect(fired).toEqual([['k', 4]]);
    expect(timers.has('k')).toBe(false);
  });

  it('is woken by its scheduler with no advanceTo call (a hung probe still times out)', () => {
    const { clock, fired, add } = setup();
    add('stall', 30, 0);
    clock.advanceTo(29.9);
    expect(fired).toEqual([]);
    clock.advanceTo(30);
    expect(fired).toEqual([['stall', 30]]);
  });
});

describe('Timers: one wake-up for the earliest deadline', () => {
  it('keeps the wake-up while the earliest deadline stays, and moves it when that one goes', () => {
    const clock = new VirtualClock();
    let scheduled = 0;
    const scheduler = {
      now: () => clock.scheduler.now(),
      schedule: ((work: () => void, delay?: number) => {
        scheduled++;
        return clock.scheduler.schedule(work, delay);
      }) as typeof clock.scheduler.schedule,
    };
    const timers = new Timers(scheduler);
    const fired: Array<[string, number]> = [];
    const add = (key: string, due: number) => timers.set(key, due, 0, (t) => fired.push([key, t]));
    add('a', 5);
    expect(scheduled).toBe(1);
    // A later deadline, an observation before the earliest, the same deadline again: kept.
    add('b', 10);
    timers.advanceTo(1);
    add('a', 5);
    expect(scheduled).toBe(1);
    // The earliest goes: the wake-up moves to the next one, which fires on time by itself.
    timers.clear('a');
    expect(scheduled).toBe(2);
    clock.advanceTo(9.9);
    expect(fired).toEqual([]);
    clock.advanceTo(10);
    expect(fired).toEqual([['b', 10]]);
    // An earlier one than the wake-up's moves it too.
    add('c', 20);
    add('d', 15);
    expect(scheduled).toBe(4);
    clock.advanceTo(30);
    expect(fired).toEqual([
      ['b', 10],
      ['d', 15],
      ['c', 20],
    ]);
  });
});
