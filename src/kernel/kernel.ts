import { Subject, asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import type { completionMachine } from '../../machines/completion.js';
import type { readinessMachine } from '../../machines/readiness.js';
import type { Evidence, SurfaceObservation } from '../../machines/surface.js';
import { KernelConfig, type KernelConfigInput, type KernelRecord } from '../schemas/kernel.js';
import { InspectionHub } from './chart-runner.js';
import { standaloneSite, type ChartHost, type StandaloneSite } from './charts.js';
import { CompletionDriver, type CompletionObserver } from './completion-driver.js';
import { ReadinessDriver } from './readiness-driver.js';
import { Timers } from './timers.js';

export type { ChartHost } from './charts.js';

/**
 * A host for the kernel on its own (scenarios, tests): a terminal actor of its own, started
 * with its pane prepared when the kernel asks for its readiness chart (its settings are the
 * kernel's), whose children are the charts; `logic` replaces a chart's machine (tests that
 * check they would notice a wrong one).
 */
export function standaloneHost(
  hub = new InspectionHub(),
  logic: { readiness?: typeof readinessMachine; completion?: typeof completionMachine } = {},
): ChartHost {
  let site: StandaloneSite | null = null;
  const start = (config: KernelConfig): StandaloneSite => {
    site?.dispose();
    return (site = standaloneSite({ config, hub, logic, terminalId: 'kernel' }));
  };
  return {
    hub,
    // The kernel hands its readiness chart its chart settings (stability included), which
    // are the terminal's settings here; what it leaves out takes the defaults.
    readiness: (input) => start(KernelConfig.parse(input)).charts.readiness,
    completion: (turnId, input) =>
      (site ?? start(KernelConfig.parse(input))).completion(turnId, input),
    stopCompletion: (turnId) => site?.stopCompletion(turnId),
    dispose: () => {
      site?.dispose();
      site = null;
    },
  };
}

export interface KernelOptions {
  config?: KernelConfigInput;
  /** Wakes the timers; the async scheduler by default, a virtual-time one in tests. */
  scheduler?: SchedulerLike;
  /** Scheduler time (ms) that is observation time 0. */
  originMs?: number;
  observer?: CompletionObserver;
  /** Where the chart actors live; by default each is a root actor of its own. */
  host?: ChartHost;
  /** Share these timers (a terminal's) instead of owning some. */
  timers?: Timers;
  /** Told every record as `records$` is (one callback where a subscription would cost more). */
  onRecord?: (record: KernelRecord) => void;
}

/** What the kernel knows right now (the public snapshot its tests read). */
export interface KernelSnapshot {
  readiness: string;
  completion: { turn: number; status: string; evidence: Evidence; payload: unknown } | null;
  turns: number;
}

/**
 * The timing kernel of one terminal: the readiness chart, one completion chart per turn
 * anchor, and their timers. Observations and submits must come in time order; before each,
 * every timer due at or before its time fires (docs/statecharts.md §3).
 */
export class Kernel {
  readonly config: KernelConfig;
  readonly timers: Timers;
  /** Made when someone first asks for `records$` (a terminal's pipeline takes `onRecord`). */
  private subject: Subject<KernelRecord> | null = null;
  private disposed = false;
  private readonly host: ChartHost;
  private readonly ownsTimers: boolean;
  private readonly readiness: ReadinessDriver;
  private completion: { driver: CompletionDriver; turnId: string } | null = null;
  private turns = 0;
  private lastT = 0;

  constructor(private readonly options: KernelOptions = {}) {
    this.config = KernelConfig.parse(options.config ?? {});
    this.ownsTimers = !options.timers;
    this.timers =
      options.timers ?? new Timers(options.scheduler ?? asyncScheduler, options.originMs ?? 0);
    this.host = options.host ?? standaloneHost();
    this.readiness = new ReadinessDriver(
      this.host.readiness(this.chartInput()),
      this.host.hub,
      this.timers,
      (r) => this.emit(r),
    );
  }

  /** Every state change and anomaly, in order, from when it is subscribed. */
  get records$(): Observable<KernelRecord> {
    if (!this.subject) {
      this.subject = new Subject<KernelRecord>();
      if (this.disposed) this.subject.complete();
    }
    return this.subject.asObservable();
  }

  private emit(r: KernelRecord): void {
    this.options.onRecord?.(r);
    this.subject?.next(r);
  }

  /**
   * Arms a turn anchor: a new completion actor with this baseline (the previous one stops);
   * returns its turn number.
   */
  submit(t: number, baseline: string, turnId = `turn-${this.turns + 1}`): number {
    this.advance(t);
    this.stopCompletion();
    this.turns += 1;
    const actor = this.host.completion(turnId, { ...this.chartInput(), baseline });
    this.completion = {
      turnId,
      driver: new CompletionDriver(
        this.turns,
        actor,
        this.host.hub,
        this.timers,
        (r) => this.emit(r),
        this.options.observer,
      ),
    };
    return this.turns;
  }

  /** Classifies one observation: readiness first, then the running turn's completion. */
  observe(t: number, obs: SurfaceObservation): void {
    this.advance(t);
    this.readiness.observe(t, obs);
    this.completion?.driver.observe(t, obs);
  }

  /**
   * Asks the running turn's completion observer again about the latest observation (evidence
   * came in between frames: docs/witness.md).
   */
  reconsider(t: number): void {
    this.advance(t);
    this.completion?.driver.reconsider(t);
  }

  /** Moves time to `t`, firing due timers. */
  advance(t: number): void {
    if (t < this.lastT) throw new RangeError(`time went backwards: ${t} < ${this.lastT}`);
    this.lastT = t;
    this.timers.advanceTo(t);
  }

  snapshot(): KernelSnapshot {
    const c = this.completion?.driver;
    return {
      readiness: this.readiness.state,
      completion: c
        ? { turn: c.turnNumber, status: c.state, evidence: c.evidence, payload: c.payload }
        : null,
      turns: this.turns,
    };
  }

  dispose(): void {
    this.stopCompletion();
    this.readiness.stop();
    // Stryker disable next-line OptionalChaining: only a host the kernel made itself is disposed here, and standaloneHost always has dispose
    if (!this.options.host) this.host.dispose?.();
    if (this.ownsTimers) this.timers.dispose();
    this.disposed = true;
    this.subject?.complete();
  }

  private stopCompletion(): void {
    if (!this.completion) return;
    this.completion.driver.stop();
    this.host.stopCompletion(this.completion.turnId);
    this.completion = null;
  }

  private chartInput() {
    const c = this.config;
    return {
      stalledIsTerminal: c.stalledIsTerminal,
      stallTimeoutSeconds: c.stallTimeoutSeconds,
      stallMode: c.stallMode,
      stabilitySeconds: c.stabilitySeconds,
    };
  }
}
