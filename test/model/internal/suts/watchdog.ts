import { expect } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { watchdogMachine } from '../../../../machines/watchdog.js';
import { InspectionHub } from '../../../../src/kernel/chart-runner.js';
import { Timers } from '../../../../src/kernel/timers.js';
import { VirtualClock } from '../../../../src/kernel/virtual-time.js';
import {
  WatchdogDriver,
  type WatchdogCancelRequest,
} from '../../../../src/kernel/watchdog-driver.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import type { Edge } from '../transitions.js';

/**
 * The test model of statecharts.md §7 and the watchdog issue, written from their words (there
 * is no seed diagram): a session is armed only when it has a budget; exceeding it fires the
 * window; an explicit resume re-arms it with a fresh window; finishing ends it from anywhere.
 * A start without a budget leaves it disabled (counted, so the path exists).
 */
const model = setup({
  types: {
    context: {} as { budgetSeconds: number; ignoredStarts: number },
    input: {} as { budgetSeconds: number },
  },
  guards: { has_budget: ({ context }) => context.budgetSeconds > 0 },
}).createMachine({
  id: 'watchdog-model',
  initial: 'disabled',
  context: ({ input }) => ({ budgetSeconds: input.budgetSeconds, ignoredStarts: 0 }),
  states: {
    disabled: {
      on: {
        evt_session_started: [
          { guard: 'has_budget', target: 'armed' },
          {
            actions: assign({
              ignoredStarts: ({ context }) => Math.min(1, context.ignoredStarts + 1),
            }),
          },
        ],
        evt_session_finished: 'finished',
      },
    },
    armed: { on: { evt_wall_clock_exceeded: 'fired', evt_session_finished: 'finished' } },
    fired: { on: { evt_session_resumed: 'armed', evt_session_finished: 'finished' } },
    finished: { type: 'final' },
  },
});

/**
 * Watchdog paths on the real chart and its driver: the deadline fires on virtual time exactly
 * one budget after the window's start (nothing just before it), with exactly one cancel
 * request per window.
 */
function watchdogSut(input: unknown, machines?: MachineOverrides): Sut {
  const { budgetSeconds } = input as { budgetSeconds: number };
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const hub = new InspectionHub();
  const actor = createActor(machines?.watchdog ?? watchdogMachine, {
    input: { budgetSeconds },
    inspect: hub.inspect,
  }).start();
  const cancels: WatchdogCancelRequest[] = [];
  let edges: Edge[] = [];
  let t = 0;
  const driver = new WatchdogDriver({
    actor,
    hub,
    timers,
    key: 'watchdog',
    cancel: (r) => cancels.push(r),
    onStep: ({ from, event, to }) => edges.push({ from, event, to }),
  });
  const moveTo = (to: number) => {
    t = to;
    clock.advanceTo(t);
    timers.advanceTo(t);
  };
  return {
    state: () => driver.state,
    dispose: () => {
      driver.stop();
      timers.dispose();
      actor.stop();
    },
    step(event) {
      edges = [];
      const fired = cancels.length;
      switch (event.type) {
        case 'evt_session_started':
          moveTo(t + 1);
          driver.start(t);
          break;
        case 'evt_wall_clock_exceeded': {
          const start = driver.sessionStartedAt ?? NaN;
          moveTo(start + budgetSeconds - 0.001);
          expect(cancels.length, 'no cancel before the deadline').toBe(fired);
          expect(edges).toEqual([]);
          moveTo(start + budgetSeconds);
          expect(cancels).toHaveLength(fired + 1);
          expect(cancels.at(-1)).toEqual({
            type: 'session.cancel',
            sessionStartedAt: start,
            firedAt: start + budgetSeconds,
            budgetSeconds,
          });
          break;
        }
        case 'evt_session_finished':
          moveTo(t + 1);
          driver.finish(t);
          break;
        case 'evt_session_resumed':
          moveTo(t + 1);
          driver.resume(t);
          expect(driver.sessionStartedAt).toBe(t);
          break;
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
      return edges;
    },
  };
}

specs.push({
  name: 'watchdog',
  model,
  inputs: [{ budgetSeconds: 100 }, { budgetSeconds: 0 }],
  createSut: watchdogSut,
});
