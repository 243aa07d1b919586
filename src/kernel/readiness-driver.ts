import type { ActorRefFrom, EventObject } from 'xstate';
import type { ReadinessEvent, readinessMachine } from '../../machines/readiness.js';
import type { SurfaceObservation } from '../../machines/surface.js';
import type { KernelRecord } from '../schemas/kernel.js';
import { ChartDriver } from './chart-driver.js';
import type { InspectionHub } from './chart-runner.js';
import { TimerOrder, type Timers } from './timers.js';

/** What the readiness chart's guards read of an event (machines/surface.ts, rules 1–4). */
function readinessKey(event: EventObject): string {
  if (event.type !== 'observation') return event.type;
  const o = (event as Extract<ReadinessEvent, { type: 'observation' }>).observation;
  return `observation ${o.availability} ${o.businessState} ${o.inputMode}`;
}

/** Feeds the readiness chart its observations and its stall timer. */
export class ReadinessDriver extends ChartDriver<ActorRefFrom<typeof readinessMachine>> {
  constructor(
    actor: ActorRefFrom<typeof readinessMachine>,
    hub: InspectionHub,
    timers: Timers,
    emit: (r: KernelRecord) => void,
  ) {
    // Its actions are raise and emit, and its guards read an observation's availability,
    // business state and input mode alone: an observation like the last in those, which
    // changed nothing, would change nothing again.
    super(
      'readiness',
      actor,
      hub,
      timers,
      'readiness.stall',
      TimerOrder.readinessStall,
      emit,
      undefined,
      { skipRepeats: true, repeatKey: readinessKey },
    );
  }

  observe(t: number, observation: SurfaceObservation): void {
    this.dispatch(t, { type: 'observation', observation });
  }
}
