import { asyncScheduler } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS, scheduleLong } from '../../src/internal/long-timer.js';
import { TimerOrder, Timers } from '../../src/kernel/timers.js';

const DAY_MS = 86_400_000;

describe('long timers are chained, never overflowed (Node fires a delay past 2^31 - 1 ms at once)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the fake clock overflows like Node: a plain 2200000 s timer fires after 1 ms', () => {
    const fired = vi.fn();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    asyncScheduler.schedule(fired, 2_200_000_000);
    vi.advanceTimersByTime(2);
    expect(fired).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it('scheduleLong fires a 2200000 s delay at its deadline, not a millisecond before', () => {
    const fired = vi.fn();
    scheduleLong(asyncScheduler, fired, 2_200_000_000);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_200_000_000 - MAX_TIMER_DELAY_MS - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100 * DAY_MS);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('a short delay is one timer as before; unsubscribing cancels a chained one mid-way', () => {
    const short = vi.fn();
    scheduleLong(asyncScheduler, short, 1000);
    vi.advanceTimersByTime(999);
    expect(short).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(short).toHaveBeenCalledTimes(1);

    const long = vi.fn();
    const sub = scheduleLong(asyncScheduler, long, 60 * DAY_MS);
    vi.advanceTimersByTime(30 * DAY_MS);
    sub.unsubscribe();
    vi.advanceTimersByTime(60 * DAY_MS);
    expect(long).not.toHaveBeenCalled();
  });

  it('an infinite delay never fires; NaN is refused', () => {
    const fired = vi.fn();
    scheduleLong(asyncScheduler, fired, Infinity);
    vi.advanceTimersByTime(400 * DAY_MS);
    expect(fired).not.toHaveBeenCalled();
    expect(() => scheduleLong(asyncScheduler, fired, NaN)).toThrow(RangeError);
  });

  it("the kernel's timers keep a watchdog deadline of 2200000 s until it is due", () => {
    const timers = new Timers(asyncScheduler, Date.now());
    const fired: number[] = [];
    timers.set('watchdog', 2_200_000, TimerOrder.watchdog, (due) => fired.push(due));
    vi.advanceTimersByTime(25 * DAY_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(2_200_000_000 - 25 * DAY_MS - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([2_200_000]);
    timers.dispose();
  });
});
