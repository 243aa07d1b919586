import { Subscription, type SchedulerLike } from 'rxjs';

/**
 * The longest delay a Node timer keeps: 2^31 - 1 ms (about 24.8 days). A longer one overflows
 * and fires after 1 ms, so every wait that may be longer goes through {@link scheduleLong}.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Runs `work` once `delayMs` have passed on `scheduler`'s clock, however long that is: a wait
 * longer than {@link MAX_TIMER_DELAY_MS} is chained from shorter ones, each re-measured
 * against the deadline when it wakes, so it never fires early. An infinite delay never fires.
 * Unsubscribing cancels whichever link is pending.
 */
export function scheduleLong(
  scheduler: SchedulerLike,
  work: () => void,
  delayMs: number,
): Subscription {
  if (Number.isNaN(delayMs)) throw new RangeError('scheduleLong: the delay is not a number');
  const due = scheduler.now() + Math.max(0, delayMs);
  const all = new Subscription();
  const arm = (ms: number) => {
    const capped = ms > MAX_TIMER_DELAY_MS;
    const link = scheduler.schedule(
      () => {
        all.remove(link);
        const left = due - scheduler.now();
        if (capped && left > 0) arm(left);
        else work();
      },
      capped ? MAX_TIMER_DELAY_MS : ms,
    );
    all.add(link);
  };
  arm(Math.max(0, delayMs));
  return all;
}
