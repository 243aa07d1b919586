import type { AnyActorRef } from 'xstate';
import type { KernelMachine, KernelRecord, TransitionRecord } from '../schemas/kernel.js';
import { ChartRunner, type InspectionHub, type RepeatOptions, type Step } from './chart-runner.js';
import type { Timers } from './timers.js';

/** An event a readiness or completion chart emits: a timer to start (for `seconds`) or cancel. */
export interface Emitted {
  type: string;
  seconds?: number;
}

/**
 * What the readiness and completion drivers share: the chart actor, the stall timer the chart
 * starts and cancels, the driver's notion of "now" (the time of the observation or timer being
 * handled), and turning the chart's steps into records with their real elapsed values and
 * anomalies. The rules are the chart's; the driver only keeps time.
 */
export abstract class ChartDriver<TActor extends AnyActorRef> {
  protected readonly runner: ChartRunner<TActor>;
  /** Time of the observation or timer being handled. */
  protected now = 0;
  /**
   * When the chart entered its current state. Every step of the chart passes through `record`,
   * so a step out of `unknown` or `stalled` measures the time spent there from it.
   */
  private enteredAt = 0;
  private readonly off: { unsubscribe(): void };

  constructor(
    protected readonly phase: KernelMachine,
    actor: TActor,
    hub: InspectionHub,
    protected readonly timers: Timers,
    private readonly stallKey: string,
    private readonly stallOrder: number,
    protected readonly emit: (record: KernelRecord) => void,
    protected readonly turn?: number,
    /** See ChartRunner's `skipRepeats`, `repeatKey` and `contextByValue`. */
    repeats: RepeatOptions = {},
  ) {
    this.runner = new ChartRunner(actor, hub, undefined, repeats);
    // One listener for every event the chart emits (a listener each took about 100 bytes).
    this.off = this.runner.actor.on('*' as never, ((ev: Emitted) => this.onEmitted(ev)) as never);
  }

  get state(): string {
    return this.runner.state;
  }

  /** What the chart asks for (a timer); a driver with timers of its own adds them. */
  protected onEmitted(ev: Emitted): void {
    if (ev.type === 'stall_timer.start') {
      this.timers.set(this.stallKey, this.now + ev.seconds!, this.stallOrder, (due) =>
        this.dispatch(due, { type: 'evt_unknown_timeout' }),
      );
    } else if (ev.type === 'stall_timer.cancel') this.timers.clear(this.stallKey);
  }

  /**
   * Sends one event at time `t` and records what it changed; `extra` adds fields to the record
   * (the events sent with some, the stability window elapsed and the observer's payload, each
   * end the chart in a single step).
   */
  protected dispatch(
    t: number,
    event: { type: string; [k: string]: unknown },
    extra?: Partial<TransitionRecord>,
  ): void {
    // A finished chart takes no more events (the actor would warn about each one).
    if (this.runner.done) return;
    this.now = t;
    for (const step of this.runner.send(event)) this.record(t, step, extra);
  }

  private record(t: number, step: Step, extra?: Partial<TransitionRecord>): void {
    const rec: TransitionRecord = {
      t,
      machine: this.phase,
      ...(this.turn === undefined ? {} : { turn: this.turn }),
      from: step.from,
      to: step.to,
      event: step.event,
      ...(step.rule === undefined ? {} : { rule: step.rule }),
    };
    // `stalled` is entered only from `unknown`: the time in the state left is the unknown run.
    const elapsed = t - this.enteredAt;
    const enteredStalled = step.to === 'stalled';
    const leftStalled = step.from === 'stalled';
    if (enteredStalled) rec.unknownElapsedSeconds = elapsed;
    if (leftStalled) rec.elapsedStalledSeconds = elapsed;
    Object.assign(rec, extra);
    this.emit(rec);
    if (enteredStalled) {
      this.emit({
        t,
        anomaly: 'stalled_entered',
        phase: this.phase,
        elapsedUnknownSeconds: elapsed,
      });
    }
    if (leftStalled && step.event !== 'stalled_is_terminal') {
      this.emit({
        t,
        anomaly: 'stalled_recovered',
        phase: this.phase,
        elapsedStalledSeconds: elapsed,
        recoveredTo: step.to,
      });
    }
    this.enteredAt = t;
  }

  stop(): void {
    this.timers.clear(this.stallKey);
    this.off.unsubscribe();
    this.runner.dispose();
  }
}
