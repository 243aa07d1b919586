import { VirtualTimeScheduler } from 'rxjs';

/**
 * A virtual clock for replay and tests: an rxjs `VirtualTimeScheduler` (milliseconds) that is
 * moved forward explicitly, running every scheduled wake-up on the way.
 */
export class VirtualClock {
  readonly scheduler = new VirtualTimeScheduler();

  /** Runs every action scheduled at or before `t` seconds. */
  advanceTo(t: number): void {
    this.scheduler.maxFrames = t * 1000 + 1e-6;
    this.scheduler.flush();
  }
}
