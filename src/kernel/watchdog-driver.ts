import { watchdogMachine } from '../../machines/watchdog.js';
import { MachineRunner, type Step } from './internal/runner.js';
import { TimerOrder, type Timers } from './timers.js';

/** The journal record of a cancelled session (contracts.md §4). */
export interface WatchdogCancelRecord {
  aggregateType: 'runtime_control';
  aggregateId: string;
  eventKind: 'runtime.watchdog.cancel';
  reason: 'wall_clock_exceeded';
  sessionStartedAt: string;
  firedAt: string;
  elapsedSeconds: number;
  configuredBudgetSeconds: number;
}

export interface WatchdogDriverOptions {
  sessionId: string;
  budgetSeconds: number;
  timers: Timers;
  /** Converts timer seconds to wall-clock epoch milliseconds (for the ISO times). */
  toEpochMs: (t: number) => number;
  /** Called once per fired window, before `cancel`: append the record to the journal here. */
  record: (r: WatchdogCancelRecord) => void;
  /** Cancels the session (interrupts the agent). */
  cancel: () => void;
  onStep?: (step: Step, t: number) => void;
}

/**
 * Bounds one session's wall-clock time (statecharts.md §7). The deadline is computed from the
 * session's persisted start, so a restarted supervisor continues the same window; a window
 * that already fired (replayed from the journal) never fires twice.
 */
export class WatchdogDriver {
  private readonly runner: MachineRunner<typeof watchdogMachine>;
  private windowStart: number | null = null;
  private readonly key: string;

  constructor(private readonly o: WatchdogDriverOptions) {
    this.runner = new MachineRunner(watchdogMachine, { budgetSeconds: o.budgetSeconds });
    this.key = `watchdog.${o.sessionId}`;
  }

  get state(): string {
    return this.runner.state;
  }

  get sessionStartedAt(): number | null {
    return this.windowStart;
  }

  /** Starts (or, after a restart, continues) the window that began at `startedAt`. */
  start(startedAt: number, alreadyFired = false): void {
    this.windowStart = startedAt;
    this.send(startedAt, 'evt_session_started');
    if (alreadyFired && this.state === 'armed') {
      this.send(startedAt, 'evt_wall_clock_exceeded');
      return;
    }
    this.arm();
  }

  /** An explicit resume: a fresh window from `t`. */
  resume(t: number): void {
    if (this.state !== 'fired') return;
    this.windowStart = t;
    this.send(t, 'evt_session_resumed');
    this.arm();
  }

  finish(t: number): void {
    this.o.timers.clear(this.key);
    this.send(t, 'evt_session_finished');
  }

  stop(): void {
    this.o.timers.clear(this.key);
    this.runner.stop();
  }

  private arm(): void {
    if (this.state !== 'armed' || this.windowStart === null) return;
    const start = this.windowStart;
    // Fires when elapsed exceeds the budget; the timer's deadline is the first such moment.
    this.o.timers.set(this.key, start + this.o.budgetSeconds, TimerOrder.watchdog, (due) =>
      this.fire(start, due),
    );
  }

  private fire(start: number, due: number): void {
    if (this.state !== 'armed') return;
    this.o.record({
      aggregateType: 'runtime_control',
      aggregateId: this.o.sessionId,
      eventKind: 'runtime.watchdog.cancel',
      reason: 'wall_clock_exceeded',
      sessionStartedAt: new Date(this.o.toEpochMs(start)).toISOString(),
      firedAt: new Date(this.o.toEpochMs(due)).toISOString(),
      elapsedSeconds: Math.round(due - start),
      configuredBudgetSeconds: this.o.budgetSeconds,
    });
    this.send(due, 'evt_wall_clock_exceeded');
    this.o.cancel();
  }

  private send(t: number, type: Parameters<typeof this.runner.send>[0]['type']): void {
    for (const step of this.runner.send({ type })) this.o.onStep?.(step, t);
  }
}
