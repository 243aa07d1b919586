import { Subject, asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { KernelConfig, type KernelConfigInput, type KernelRecord } from '../schemas/kernel.js';
import type { Observation } from '../schemas/observation.js';
import { CompletionDriver, type CompletionObserver } from './completion-driver.js';
import type { Evidence } from './evidence.js';
import { ReadinessDriver } from './readiness-driver.js';
import { Timers } from './timers.js';

export interface KernelOptions {
  config?: KernelConfigInput;
  /** Wakes the timers; the async scheduler by default, a virtual-time one in tests. */
  scheduler?: SchedulerLike;
  /** Scheduler time (ms) that is observation time 0. */
  originMs?: number;
  observer?: CompletionObserver;
}

/** What the kernel knows right now (the public snapshot its tests read). */
export interface KernelSnapshot {
  readiness: string;
  completion: { turn: number; status: string; evidence: Evidence; payload: unknown } | null;
  turns: number;
}

/**
 * The timing kernel of one terminal: the readiness machine, one completion machine per turn
 * anchor, and their timers. Observations and submits must come in time order; before each,
 * every timer due at or before its time fires (statecharts.md §3).
 */
export class Kernel {
  readonly config: KernelConfig;
  readonly timers: Timers;
  private readonly subject = new Subject<KernelRecord>();
  /** Every state change and anomaly, in order. */
  readonly records$: Observable<KernelRecord> = this.subject.asObservable();
  private readonly readiness: ReadinessDriver;
  private completion: CompletionDriver | null = null;
  private turns = 0;
  private lastT = 0;

  constructor(private readonly options: KernelOptions = {}) {
    this.config = KernelConfig.parse(options.config ?? {});
    this.timers = new Timers(options.scheduler ?? asyncScheduler, options.originMs ?? 0);
    this.readiness = new ReadinessDriver(this.timers, this.config, (r) => this.subject.next(r));
  }

  /** Arms a turn anchor: a new completion actor with this baseline; returns its turn number. */
  submit(t: number, baseline: string): number {
    this.advance(t);
    this.completion?.stop();
    this.turns += 1;
    this.completion = new CompletionDriver(
      this.turns,
      baseline,
      this.timers,
      this.config,
      (r) => this.subject.next(r),
      this.options.observer,
    );
    return this.turns;
  }

  /** Classifies one observation: readiness first, then the running turn's completion. */
  observe(t: number, obs: Observation): void {
    this.advance(t);
    this.readiness.observe(t, obs);
    this.completion?.observe(t, obs);
  }

  /** Moves time to `t`, firing due timers. */
  advance(t: number): void {
    if (t < this.lastT) throw new RangeError(`time went backwards: ${t} < ${this.lastT}`);
    this.lastT = t;
    this.timers.advanceTo(t);
  }

  snapshot(): KernelSnapshot {
    const c = this.completion;
    return {
      readiness: this.readiness.state,
      completion: c
        ? { turn: c.turnNumber, status: c.state, evidence: c.currentEvidence, payload: c.payload }
        : null,
      turns: this.turns,
    };
  }

  dispose(): void {
    this.completion?.stop();
    this.readiness.stop();
    this.timers.dispose();
    this.subject.complete();
  }
}
