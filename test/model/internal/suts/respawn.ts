import { expect } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import type { RespawnRequest } from '../../../../machines/respawn.js';
import { Journal } from '../../../../src/journal/journal.js';
import { VirtualClock } from '../../../../src/kernel/virtual-time.js';
import { RespawnDriver, supervisorRespawnCharts } from '../../../../src/supervisor/respawn.js';
import { supervisorMachine } from '../../../../machines/supervisor.js';
import type { ModelSpec, Sut } from '../harness.js';
import type { Edge } from '../transitions.js';

/** The generated path tests of this chart (run by test/model/respawn.model.test.ts). */
export const specs: ModelSpec[] = [];

interface Input {
  policy: 'never' | 'on-failure';
  limit: number;
}

/** docs/spawn.md's defaults: the first restart after 1 s, doubled per restart, at most 60 s. */
const INITIAL_SECONDS = 1;
const MAX_SECONDS = 60;
const WINDOW_SECONDS = 600;

/**
 * The test model of docs/spawn.md's restart policy, written from its words: a CLI that dies
 * under `on-failure` without a clean exit is started again after a backoff; a death when
 * `limit` restarts were made within the window gives up; a clean exit, and every death under
 * `never`, ends it; while paneward stops the CLI its death is no failure (a stop that fails
 * leaves it running); the supervisor stopping releases it from anywhere. The model counts the
 * restarts made; the paths are far shorter than the window.
 */
const model = setup({
  types: {
    context: {} as { policy: Input['policy']; limit: number; restarts: number },
    input: {} as Input,
    events: {} as
      | { type: 'evt_cli_died' }
      | { type: 'evt_cli_exited_clean' }
      | { type: 'evt_backoff_elapsed' }
      | { type: 'evt_respawned' }
      | { type: 'evt_respawn_failed' }
      | { type: 'evt_stop_requested' }
      | { type: 'evt_stop_failed' }
      | { type: 'evt_released' },
  },
  guards: {
    restarts_off: ({ context }) => context.policy !== 'on-failure',
    at_limit: ({ context }) => context.restarts >= context.limit,
  },
}).createMachine({
  id: 'respawn-model',
  initial: 'running',
  context: ({ input }) => ({ policy: input.policy, limit: input.limit, restarts: 0 }),
  on: { evt_released: '.released' },
  states: {
    running: {
      on: {
        evt_cli_exited_clean: 'ended',
        evt_cli_died: [
          { guard: 'restarts_off', target: 'ended' },
          { guard: 'at_limit', target: 'gave_up' },
          { target: 'backing_off' },
        ],
        evt_stop_requested: 'exiting',
      },
    },
    backing_off: {
      on: { evt_backoff_elapsed: 'respawning', evt_stop_requested: 'exiting' },
    },
    respawning: {
      on: {
        evt_respawned: {
          target: 'running',
          actions: assign({ restarts: ({ context }) => context.restarts + 1 }),
        },
        evt_respawn_failed: 'running',
        evt_stop_requested: 'exiting',
      },
    },
    exiting: { on: { evt_stop_failed: 'running' } },
    ended: {},
    gave_up: {},
    released: { type: 'final' },
  },
});

/**
 * Respawn paths on the real chart and its driver, on virtual time: a death is a raw exit status
 * (1, or 0 for a clean exit); the backoff elapses exactly at its doubled delay (nothing just
 * before it); a respawn is the driver's call to start the CLI, answered or refused; what is
 * journaled is checked against what happened (one `terminal.respawned` per restart made, one
 * `terminal.respawn_gave_up` when it gives up).
 */
function respawnSut(input: unknown): Sut {
  const { policy, limit } = input as Input;
  const clock = new VirtualClock();
  const journal = new Journal({ dataDir: null });
  let t = 0;
  let made = 0;
  let pending: { resolve: () => void; reject: (e: Error) => void } | null = null;
  const asked: Array<Extract<RespawnRequest, { type: 'respawn' }>> = [];
  const driver = new RespawnDriver({
    terminalId: 't1',
    charts: supervisorRespawnCharts(createActor(supervisorMachine).start()),
    policy,
    limits: {
      initialSeconds: INITIAL_SECONDS,
      maxSeconds: MAX_SECONDS,
      limit,
      windowSeconds: WINDOW_SECONDS,
    },
    scheduler: clock.scheduler,
    journal,
    respawn: (request) => {
      asked.push(request);
      return new Promise((resolve, reject) => {
        pending = { resolve: () => resolve({ resumed: false }), reject };
      });
    },
    changed: () => undefined,
  });
  // A virtual scheduler's clock stands at its last action: one at `to` moves it there.
  const moveTo = (to: number) => {
    t = to;
    clock.scheduler.schedule(() => undefined, to * 1000 - clock.scheduler.now());
    clock.advanceTo(t);
  };
  const settle = async () => {
    await new Promise<void>((r) => setImmediate(r));
    await journal.flush();
    await new Promise<void>((r) => setImmediate(r));
  };
  const kinds = () => journal.read().map((r) => r.kind);
  return {
    state: () => driver.state,
    dispose: () => {
      if (driver.state !== 'released') driver.release();
      void journal.close();
    },
    async step(event, from) {
      const before = driver.state;
      switch (event.type) {
        case 'evt_cli_died':
        case 'evt_cli_exited_clean':
          moveTo(t + 1);
          driver.send({
            type: 'evt_cli_died',
            status: event.type === 'evt_cli_died' ? 1 : 0,
            signal: null,
            at: clock.scheduler.now(),
          });
          await settle();
          break;
        case 'evt_backoff_elapsed': {
          const delay = Math.min(MAX_SECONDS, INITIAL_SECONDS * 2 ** made);
          const start = t;
          moveTo(start + delay - 0.001);
          expect(driver.state, 'the backoff has not elapsed yet').toBe(from);
          expect(asked).toHaveLength(made);
          moveTo(start + delay);
          expect(asked).toHaveLength(made + 1);
          expect(asked.at(-1)).toMatchObject({ attempt: made + 1, delaySeconds: delay });
          break;
        }
        case 'evt_respawned':
          pending!.resolve();
          await settle();
          made += 1;
          expect(kinds().filter((k) => k === 'terminal.respawned')).toHaveLength(made);
          break;
        case 'evt_respawn_failed':
          pending!.reject(new Error('tmux refused'));
          await settle();
          break;
        case 'evt_stop_requested':
          driver.send({ type: 'evt_stop_requested' });
          break;
        case 'evt_stop_failed':
          driver.send({ type: 'evt_stop_failed' });
          break;
        case 'evt_released': {
          const starts = asked.length;
          driver.release();
          // A backoff released is no restart: time passing starts nothing.
          moveTo(t + 2 * MAX_SECONDS);
          expect(asked).toHaveLength(starts);
          break;
        }
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
      const after = driver.state;
      if (after === 'gave_up') {
        expect(kinds().filter((k) => k === 'terminal.respawn_gave_up')).toHaveLength(1);
        expect(driver.view().gaveUp?.reason).toContain(`limit of ${limit}`);
      }
      const edges: Edge[] = [];
      if (after !== before || event.type === 'evt_released') {
        edges.push({ from: before, event: event.type, to: after });
      }
      return edges;
    },
  };
}

specs.push({
  name: 'respawn',
  model,
  inputs: [
    { policy: 'on-failure', limit: 1 },
    { policy: 'never', limit: 1 },
  ],
  createSut: respawnSut,
});
