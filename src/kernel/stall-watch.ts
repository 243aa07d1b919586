import type { StallMode } from '../schemas/kernel.js';
import type { Timers } from './timers.js';

/**
 * The unknown → stalled timer of one machine (statecharts.md §3). `continuous`: the deadline is
 * the first unknown observation of the run plus the timeout, and it fires with no further
 * observations; `gap`: every observation while unknown re-arms it (Houmao's behaviour).
 */
export class StallWatch {
  /** Time of the first unknown observation of the current unknown run. */
  runStart: number | null = null;
  /** When the machine entered `stalled`. */
  stalledSince: number | null = null;

  constructor(
    private readonly timers: Timers,
    private readonly key: string,
    private readonly order: number,
    private readonly timeoutSeconds: number,
    private readonly mode: StallMode,
    private readonly onTimeout: (due: number) => void,
  ) {}

  /** Called after each observation with the state the machine is now in. */
  afterObservation(t: number, state: string): void {
    if (state === 'unknown') {
      if (this.runStart === null) {
        this.runStart = t;
        this.arm(t + this.timeoutSeconds);
      } else if (this.mode === 'gap') {
        this.arm(t + this.timeoutSeconds);
      }
      return;
    }
    if (state !== 'stalled') this.reset();
  }

  /** Called after the timeout fired and the machine entered `state`. */
  entered(t: number, state: string): void {
    if (state === 'stalled') this.stalledSince = t;
    else if (state !== 'unknown') this.reset();
  }

  reset(): void {
    this.runStart = null;
    this.stalledSince = null;
    this.timers.clear(this.key);
  }

  private arm(due: number): void {
    this.timers.set(this.key, due, this.order, (d) => this.onTimeout(d));
  }
}
