/**
 * The session watchdog's driver (statecharts.md §7): the window's deadline lives on the
 * terminal's timers, exceeding it asks for exactly one cancel per window, a resume opens a
 * fresh window at the resume moment, and a window replayed from the journal continues where it
 * was without asking for anything again.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { watchdogMachine } from '../../machines/watchdog.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import { Timers } from '../../src/kernel/timers.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { WatchdogDriver, type WatchdogCancelRequest } from '../../src/kernel/watchdog-driver.js';

const KEY = 'watchdog.t1';

function watchdog(budgetSeconds: number) {
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const hub = new InspectionHub();
  const actor = createActor(watchdogMachine, { input: { budgetSeconds }, inspect: hub.inspect });
  actor.start();
  const cancels: WatchdogCancelRequest[] = [];
  const steps: string[] = [];
  const driver = new WatchdogDriver({
    actor,
    hub,
    timers,
    key: KEY,
    cancel: (r) => cancels.push(r),
    onStep: (s, t) => steps.push(`${t} ${s.from}->${s.to} ${s.event}`),
  });
  /** Only the scheduler moves: the deadline must fire with no call into the driver. */
  const wait = (t: number) => clock.advanceTo(t);
  return { clock, timers, actor, driver, cancels, steps, wait };
}

const cancelOf = (sessionStartedAt: number, budgetSeconds: number) => ({
  type: 'session.cancel',
  sessionStartedAt,
  firedAt: sessionStartedAt + budgetSeconds,
  budgetSeconds,
});

describe('WatchdogDriver', () => {
  it('arms a window at its start; the deadline is start + budget, on the given timer key', () => {
    const w = watchdog(100);
    w.wait(5);
    w.driver.start(5);
    expect(w.driver.state).toBe('armed');
    expect(w.driver.sessionStartedAt).toBe(5);
    expect(w.driver.budgetSeconds).toBe(100);
    expect(w.timers.due(KEY)).toBe(105);
    expect(w.steps).toEqual(['5 disabled->armed evt_session_started']);
  });

  it('asks for exactly one cancel at the deadline, not before, and never again for that window', () => {
    const w = watchdog(100);
    w.wait(5);
    w.driver.start(5);
    w.wait(104.999);
    expect(w.cancels).toEqual([]);
    w.wait(105);
    expect(w.cancels).toEqual([cancelOf(5, 100)]);
    expect(w.driver.state).toBe('fired');
    expect(w.steps.at(-1)).toBe('105 armed->fired evt_wall_clock_exceeded');
    expect(w.timers.has(KEY)).toBe(false);
    w.wait(10_000);
    expect(w.cancels).toHaveLength(1);
  });

  it('a resume opens a fresh window at the resume moment', () => {
    const w = watchdog(100);
    w.driver.start(0);
    w.wait(100);
    w.wait(250);
    w.driver.resume(250);
    expect(w.driver.state).toBe('armed');
    expect(w.driver.sessionStartedAt).toBe(250);
    expect(w.steps.at(-1)).toBe('250 fired->armed evt_session_resumed');
    w.wait(349.9);
    expect(w.cancels).toHaveLength(1);
    w.wait(350);
    expect(w.cancels).toEqual([cancelOf(0, 100), cancelOf(250, 100)]);
  });

  it('a finished session drops its deadline and is never cancelled', () => {
    const w = watchdog(100);
    w.driver.start(0);
    w.wait(50);
    w.driver.finish(50);
    expect(w.driver.state).toBe('finished');
    expect(w.timers.has(KEY)).toBe(false);
    expect(w.steps.at(-1)).toBe('50 armed->finished evt_session_finished');
    w.wait(1_000);
    expect(w.cancels).toEqual([]);
  });

  it('without a budget a session is never armed', () => {
    const w = watchdog(0);
    w.driver.start(0);
    expect(w.driver.state).toBe('disabled');
    expect(w.timers.has(KEY)).toBe(false);
    expect(w.steps).toEqual([]);
  });

  it('a restored window that had not fired continues the same window, without a cancel while replaying', () => {
    const w = watchdog(100);
    w.wait(40);
    w.driver.restore(40, { sessionStartedAt: 10, fired: false });
    expect(w.driver.state).toBe('armed');
    expect(w.driver.sessionStartedAt).toBe(10);
    expect(w.timers.due(KEY)).toBe(110);
    expect(w.cancels).toEqual([]);
    w.wait(110);
    // Replay is over: the deadline of the continued window does cancel, once.
    expect(w.cancels).toEqual([cancelOf(10, 100)]);
  });

  it('a restored window that had fired stays fired: no second cancel, no deadline', () => {
    const w = watchdog(100);
    w.wait(500);
    w.driver.restore(500, { sessionStartedAt: 10, fired: true });
    expect(w.driver.state).toBe('fired');
    expect(w.timers.has(KEY)).toBe(false);
    w.wait(1_000);
    expect(w.cancels).toEqual([]);
    // Only an explicit resume opens a new window, which cancels again in its turn.
    w.driver.resume(1_000);
    w.wait(1_100);
    expect(w.cancels).toEqual([cancelOf(1_000, 100)]);
  });

  it('needs no step listener', () => {
    const clock = new VirtualClock();
    const timers = new Timers(clock.scheduler);
    const hub = new InspectionHub();
    const actor = createActor(watchdogMachine, {
      input: { budgetSeconds: 10 },
      inspect: hub.inspect,
    });
    actor.start();
    const cancels: WatchdogCancelRequest[] = [];
    const driver = new WatchdogDriver({
      actor,
      hub,
      timers,
      key: KEY,
      cancel: (r) => cancels.push(r),
    });
    driver.start(0);
    clock.advanceTo(10);
    expect(cancels).toEqual([cancelOf(0, 10)]);
  });

  it('stop drops the deadline and stops listening to the chart', () => {
    const w = watchdog(100);
    w.driver.start(0);
    w.driver.stop();
    expect(w.timers.has(KEY)).toBe(false);
    w.wait(200);
    expect(w.cancels).toEqual([]);
    // The chart itself still runs; what it emits or does is no longer this driver's.
    w.actor.send({ type: 'evt_wall_clock_exceeded', at: 200 });
    expect(w.cancels).toEqual([]);
    expect(w.steps).toEqual(['0 disabled->armed evt_session_started']);
  });
});
