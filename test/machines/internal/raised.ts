import { createActor, type AnyStateMachine } from 'xstate';
import type { Evidence, SurfaceObservation } from '../../../machines/surface.js';

/**
 * The chart event a machine raises for one observation while in `state` (with `context`
 * fields replaced), or null when it raises none: its classification, read by running the
 * real machine from that state.
 */
export function raisedBy(
  machine: AnyStateMachine,
  state: string,
  observation: Pick<SurfaceObservation, 'availability' | 'businessState' | 'inputMode'>,
  context: Record<string, unknown> = {},
): string | null {
  const initial = createActor(machine).getSnapshot();
  const snapshot = machine.resolveState({
    value: state,
    context: { ...initial.context, ...context },
  });
  const raised: string[] = [];
  const actor = createActor(machine, {
    snapshot,
    inspect: (ev) => {
      // Each raised event is processed as a microstep of its own, handled or not.
      if (ev.type === '@xstate.microstep' && ev.event.type.startsWith('evt_'))
        raised.push(ev.event.type);
    },
  }).start();
  actor.send({
    type: 'observation',
    observation: {
      uiContext: 'x',
      projectionText: 'b',
      baselineInvalidated: false,
      ...observation,
    },
  });
  actor.stop();
  return raised[0] ?? null;
}

/** Completion evidence with a baseline of `b`. */
export function evidence(flags: Partial<Evidence> = {}): Evidence {
  return {
    sawWorking: false,
    sawProjectionChange: false,
    baselineKey: 'b',
    projectionKey: 'b',
    keyFrozen: false,
    ...flags,
  };
}
