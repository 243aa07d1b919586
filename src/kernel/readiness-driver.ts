import type { ActorRefFrom } from 'xstate';
import type { readinessMachine } from '../../machines/readiness.js';
import type { SurfaceObservation } from '../../machines/surface.js';
import type { KernelRecord } from '../schemas/kernel.js';
import { ChartDriver } from './chart-driver.js';
import type { InspectionHub } from './chart-runner.js';
import { TimerOrder, type Timers } from './timers.js';

/** Feeds the readiness chart its observations and its stall timer. */
export class ReadinessDriver extends ChartDriver<ActorRefFrom<typeof readinessMachine>> {
  constructor(
    actor: ActorRefFrom<typeof readinessMachine>,
    hub: InspectionHub,
    timers: Timers,
    emit: (r: KernelRecord) => void,
  ) {
    // Its actions are raise and emit: an observation like the last, which changed nothing,
    // would change nothing again.
    super(
      'readiness',
      actor,
      hub,
      timers,
      'readiness.stall',
      TimerOrder.readinessStall,
      emit,
      undefined,
      true,
    );
  }

  observe(t: number, observation: SurfaceObservation): void {
    this.dispatch(t, { type: 'observation', observation });
  }
}
