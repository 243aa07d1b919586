import type { AnyStateMachine, InputFrom } from 'xstate';
import type {
  KernelConfig,
  KernelMachine,
  KernelRecord,
  TransitionRecord,
} from '../schemas/kernel.js';
import { MachineRunner, type Step } from './internal/runner.js';
import { StallWatch } from './stall-watch.js';
import type { Timers } from './timers.js';

/**
 * What readiness and completion drivers share: the actor, the stall timer, and turning
 * machine steps into records with their real elapsed values and anomalies.
 */
export abstract class MachineDriver<TMachine extends AnyStateMachine> {
  protected readonly runner: MachineRunner<TMachine>;
  protected readonly stall: StallWatch;

  constructor(
    protected readonly phase: KernelMachine,
    machine: TMachine,
    input: InputFrom<TMachine>,
    protected readonly timers: Timers,
    config: KernelConfig,
    stallKey: string,
    stallOrder: number,
    protected readonly emit: (record: KernelRecord) => void,
    protected readonly turn?: number,
  ) {
    this.runner = new MachineRunner(machine, input);
    this.stall = new StallWatch(
      timers,
      stallKey,
      stallOrder,
      config.stallTimeoutSeconds,
      config.stallMode,
      (due) => this.onStallTimeout(due),
    );
  }

  get state(): string {
    return this.runner.state;
  }

  /** Sends one event at time `t` and records what it changed. */
  protected dispatch(
    t: number,
    type: string,
    extra?: (step: Step) => Partial<TransitionRecord>,
  ): Step[] {
    if (this.runner.done) return [];
    const runStart = this.stall.runStart;
    const stalledSince = this.stall.stalledSince;
    const steps = this.runner.send({ type } as Parameters<MachineRunner<TMachine>['send']>[0]);
    for (const step of steps) {
      const rec: TransitionRecord = {
        t,
        machine: this.phase,
        ...(this.turn === undefined ? {} : { turn: this.turn }),
        from: step.from,
        to: step.to,
        event: step.event,
      };
      if (step.event === 'evt_unknown_timeout' && runStart !== null) {
        rec.unknownElapsedSeconds = t - runStart;
      }
      const stalledFor = step.from === 'stalled' ? t - (stalledSince ?? t) : null;
      if (stalledFor !== null) rec.elapsedStalledSeconds = stalledFor;
      Object.assign(rec, extra?.(step));
      this.emit(rec);
      if (step.to === 'stalled' && runStart !== null) {
        this.emit({
          t,
          anomaly: 'stalled_entered',
          phase: this.phase,
          elapsedUnknownSeconds: t - runStart,
        });
      }
      if (stalledFor !== null && step.event !== 'stalled_is_terminal') {
        this.emit({
          t,
          anomaly: 'stalled_recovered',
          phase: this.phase,
          elapsedStalledSeconds: stalledFor,
          recoveredTo: step.to,
        });
      }
    }
    return steps;
  }

  private onStallTimeout(due: number): void {
    this.dispatch(due, 'evt_unknown_timeout');
    this.stall.entered(due, this.state);
    this.afterTimer(due);
  }

  /** Hook for subclasses after a timer-driven change. */
  protected afterTimer(_t: number): void {}

  stop(): void {
    this.stall.reset();
    this.runner.stop();
  }
}
