import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

interface Pending {
  at: number;
  work: () => void;
  sub: Subscription;
}

/**
 * A scheduler whose clock is set by hand and whose wake-ups run only when asked: it shows what
 * the timers asked for (how many wake-ups are pending, for when) and can run a wake-up late
 * or early, as a loaded live scheduler might.
 */
export class ManualScheduler implements SchedulerLike {
  /** The clock, in milliseconds. */
  ms = 0;
  private queue: Pending[] = [];

  now(): number {
    return this.ms;
  }

  schedule<T>(
    work: (this: SchedulerAction<T>, state?: T) => void,
    delay = 0,
    state?: T,
  ): Subscription {
    const sub = new Subscription();
    const entry: Pending = {
      at: this.ms + delay,
      work: () => work.call(undefined as unknown as SchedulerAction<T>, state),
      sub,
    };
    sub.add(() => {
      this.queue = this.queue.filter((p) => p !== entry);
    });
    this.queue.push(entry);
    return sub;
  }

  /** Wake-up times (ms) still pending, earliest first. */
  get pending(): number[] {
    return this.queue.map((p) => p.at).sort((a, b) => a - b);
  }

  /** Sets the clock to `ms` and runs the earliest pending wake-up (whatever its time). */
  runNext(ms: number): void {
    this.ms = ms;
    const next = [...this.queue].sort((a, b) => a.at - b.at)[0];
    if (!next) return;
    this.queue = this.queue.filter((p) => p !== next);
    next.work();
  }
}
