import { readinessMachine } from '../../machines/readiness.js';
import type { Observation } from '../schemas/observation.js';
import type { KernelConfig, KernelRecord } from '../schemas/kernel.js';
import { classifyReadiness } from './classify.js';
import { MachineDriver } from './machine-driver.js';
import { TimerOrder, type Timers } from './timers.js';

/** Drives the readiness machine from observations; owns its stall timer. */
export class ReadinessDriver extends MachineDriver<typeof readinessMachine> {
  constructor(timers: Timers, config: KernelConfig, emit: (r: KernelRecord) => void) {
    super(
      'readiness',
      readinessMachine,
      { stalledIsTerminal: config.stalledIsTerminal },
      timers,
      config,
      'readiness.stall',
      TimerOrder.readinessStall,
      emit,
    );
  }

  observe(t: number, obs: Observation): void {
    this.dispatch(t, classifyReadiness(obs, this.state));
    this.stall.afterObservation(t, this.state);
  }
}
