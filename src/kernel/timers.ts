import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleLong } from '../internal/long-timer.js';

/** Tie-break order of timers due at the same instant (docs/contracts.md §1). */
export const TimerOrder = {
  readinessStall: 0,
  completionStall: 1,
  completionStability: 2,
  settle: 3,
  watchdog: 4,
  surfaceStability: 5,
  staleActive: 6,
  /** The completion witness's disagreement window (docs/witness.md). */
  witness: 7,
} as const;

interface TimerEntry {
  due: number;
  order: number;
  seq: number;
  fire: (due: number) => void;
}

/** Slack for comparing a scheduler's millisecond clock with deadlines in seconds. */
const EPSILON = 1e-9;

/**
 * The kernel's timers: named deadlines in seconds, woken by an injected rxjs scheduler
 * (the async scheduler live, a virtual-time scheduler in tests and replay). Due timers fire
 * earliest first, ties in `order`, each with its own deadline as its time, so results never
 * depend on how late a wake-up ran. `advanceTo(t)` fires everything due at or before `t`;
 * the owner calls it before handling an observation at `t`.
 */
export class Timers {
  private readonly entries = new Map<string, TimerEntry>();
  private wake: Subscription | null = null;
  /** The deadline `wake` is for (Infinity: none). */
  private wakeAt = Infinity;
  private seq = 0;
  private firing = false;
  /**
   * A list made anew on each change (a terminal has one listener: a one-entry set, or a list
   * grown by a push, takes three times the memory).
   */
  private firedListeners: Array<(due: number) => void> = [];

  constructor(
    private readonly scheduler: SchedulerLike,
    /** Scheduler time (ms) that is second 0. */
    private readonly originMs = 0,
  ) {}

  /** Seconds since the origin, on the scheduler's clock. */
  now(): number {
    return (this.scheduler.now() - this.originMs) / 1000;
  }

  set(key: string, due: number, order: number, fire: (due: number) => void): void {
    this.entries.set(key, { due, order, seq: this.seq++, fire });
    this.reschedule();
  }

  clear(key: string): void {
    if (this.entries.delete(key)) this.reschedule();
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  due(key: string): number | undefined {
    return this.entries.get(key)?.due;
  }

  /** Fires, in order, every timer due at or before `t` (timers set while firing included). */
  advanceTo(t: number): void {
    if (this.firing) return;
    this.firing = true;
    try {
      for (;;) {
        let next: [string, TimerEntry] | null = null;
        for (const e of this.entries) {
          if (e[1].due > t + EPSILON) continue;
          if (
            !next ||
            e[1].due < next[1].due ||
            (e[1].due === next[1].due &&
              (e[1].order < next[1].order ||
                (e[1].order === next[1].order &&
                  // Stryker disable next-line EqualityOperator: every entry has its own seq, so `<` and `<=` never differ
                  e[1].seq < next[1].seq)))
          ) {
            next = e;
          }
        }
        if (!next) break;
        this.entries.delete(next[0]);
        next[1].fire(next[1].due);
        for (const listener of this.firedListeners.slice()) listener(next[1].due);
      }
    } finally {
      this.firing = false;
      this.reschedule();
    }
  }

  /** Calls `listener` after each timer has fired, with its deadline. */
  onFired(listener: (due: number) => void): () => void {
    this.firedListeners = [...this.firedListeners, listener];
    return () => {
      this.firedListeners = this.firedListeners.filter((l) => l !== listener);
    };
  }

  dispose(): void {
    this.firedListeners = [];
    this.entries.clear();
    this.wake?.unsubscribe();
    this.wake = null;
    this.wakeAt = Infinity;
  }

  private reschedule(): void {
    // Stryker disable next-line ConditionalExpression: advanceTo reschedules when firing is over; a wake-up asked for meanwhile is replaced by that one before the scheduler can run it
    if (this.firing) return;
    let earliest = Infinity;
    for (const e of this.entries.values()) earliest = Math.min(earliest, e.due);
    // The wake-up already set is for this deadline: kept (every frame and every timer set
    // would otherwise cancel a scheduler action and make another).
    if (this.wake && earliest === this.wakeAt) return;
    this.wake?.unsubscribe();
    this.wake = null;
    this.wakeAt = Infinity;
    if (earliest === Infinity) return;
    const delayMs = Math.max(0, earliest * 1000 + this.originMs - this.scheduler.now());
    // A deadline weeks away (a session budget) is chained: Node's timers overflow past 2^31 ms.
    this.wakeAt = earliest;
    this.wake = scheduleLong(
      this.scheduler,
      () => {
        this.wake = null;
        this.wakeAt = Infinity;
        this.advanceTo(Math.max(this.now(), earliest));
      },
      delayMs,
    );
  }
}
