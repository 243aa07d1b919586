import { expect } from 'vitest';
import { watchdogMachine } from '../../machines/watchdog.js';
import { Timers } from '../../src/kernel/timers.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { WatchdogDriver, type WatchdogCancelRecord } from '../../src/kernel/watchdog-driver.js';
import { describeModel, type Sut } from './internal/harness.js';
import type { Edge } from './internal/transitions.js';

const BUDGET = 100;

/** Watchdog paths on a real WatchdogDriver: the deadline fires on virtual time. */
function watchdogSut(input: unknown): Sut {
  const budgetSeconds = (input as { budgetSeconds: number }).budgetSeconds;
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const journal: WatchdogCancelRecord[] = [];
  let cancels = 0;
  let edges: Edge[] = [];
  let t = 0;
  const driver = new WatchdogDriver({
    sessionId: 'sess-1',
    budgetSeconds,
    timers,
    toEpochMs: (s) => Date.UTC(2025, 0, 1) + s * 1000,
    record: (r) => journal.push(r),
    cancel: () => {
      cancels += 1;
    },
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
    },
    step(event) {
      edges = [];
      const fired = journal.length;
      switch (event.type) {
        case 'evt_session_started':
          moveTo(t + 1);
          driver.start(t);
          break;
        case 'evt_wall_clock_exceeded': {
          const start = driver.sessionStartedAt ?? NaN;
          // Just before the deadline nothing happens; at it, exactly one record and one cancel.
          moveTo(start + budgetSeconds - 0.5);
          expect(journal.length).toBe(fired);
          moveTo(start + budgetSeconds);
          expect(journal.length).toBe(fired + 1);
          expect(journal.at(-1)).toMatchObject({
            eventKind: 'runtime.watchdog.cancel',
            elapsedSeconds: budgetSeconds,
            configuredBudgetSeconds: budgetSeconds,
          });
          expect(cancels).toBe(journal.length);
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

describeModel({
  name: 'watchdog',
  machine: watchdogMachine,
  inputs: [{ budgetSeconds: BUDGET }],
  createSut: watchdogSut,
});
