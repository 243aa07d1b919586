import type { TerminalState } from '../../../../src/schemas/terminal-state.js';
import { expect } from 'vitest';
import { assign, createActor, fromCallback, fromPromise, setup, SimulatedClock } from 'xstate';
import {
  terminalMachine,
  type Preparation,
  type TerminalRuntimeEvent,
  type TerminalInput,
  type TerminalRuntimeInput,
} from '../../../../machines/terminal.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];

const BACKOFF = { initialSeconds: 0.5, maxSeconds: 2 };

/**
 * The test model of one terminal actor, from the actor-system issue's words: it attaches
 * (prepares its pane), runs, and when its runtime fails it restarts after a backoff (through
 * preparing again); detaching ends it from any state. Restarts are counted up to the cap so the
 * model can say which delay each one must wait.
 */
const model = setup({
  types: { context: {} as { restarts: number } },
}).createMachine({
  id: 'terminal-model',
  initial: 'attaching',
  context: { restarts: 0 },
  on: { detach: '.detached' },
  states: {
    attaching: { on: { prepared: 'running', prepare_failed: 'restarting' } },
    // An agent started in a pane that had none: prepare again (detect the tool) at once.
    running: { on: { runtime_failed: 'restarting', retool: 'attaching' } },
    restarting: {
      on: {
        backoff_elapsed: {
          target: 'attaching',
          actions: assign({ restarts: ({ context }) => Math.min(3, context.restarts + 1) }),
        },
      },
    },
    detached: { type: 'final' },
  },
});

/** The delay the n-th restart waits (n from 0): capped exponential backoff. */
const delayMs = (n: number) => Math.min(BACKOFF.maxSeconds, BACKOFF.initialSeconds * 2 ** n) * 1000;

/**
 * The real terminal machine, run as an actor on a simulated clock, with a prepare step and a
 * runtime the test controls: prepare resolves or rejects on cue, the runtime fails on cue.
 * Checks on the way: no runtime (which answers commands) runs unless running, the public state
 * survives restarts, and a restart waits exactly its backoff.
 */
function terminalSut(_input: unknown, machines?: MachineOverrides): Sut {
  const clock = new SimulatedClock();
  let prepare: { resolve: (p: Preparation) => void; reject: (e: Error) => void } | null = null;
  let runtime: { fail: () => void; retool: () => void } | null = null;
  let restarts = 0;
  const logic = (machines?.terminal ?? terminalMachine).provide({
    actors: {
      prepare: fromPromise<Preparation, TerminalRuntimeInput>(
        ({ input }) =>
          new Promise<Preparation>((resolve, reject) => {
            prepare = {
              resolve: (p) => resolve({ ...p, request: { ...input.request, tool: 'claude_code' } }),
              reject,
            };
            void input;
          }),
      ),
      runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(({ sendBack }) => {
        runtime = {
          fail: () => sendBack({ type: 'evt_runtime_failed', error: 'boom' }),
          retool: () => sendBack({ type: 'evt_retool' }),
        };
        return () => {
          runtime = null;
        };
      }),
    },
  });
  const input: TerminalInput = {
    terminalId: 't1',
    request: { target: '%1', tool: 'claude_code' },
    config: {
      stallTimeoutSeconds: 30,
      stabilitySeconds: 1,
      settleSeconds: 1,
      stallMode: 'continuous',
      stalledIsTerminal: false,
    },
    backoff: BACKOFF,
    // A stand-in for a public state: the terminal carries it without reading it.
    state: { marker: 'published' } as unknown as TerminalState,
  };
  const actor = createActor(logic, { input, clock }).start();
  // The top-level state.
  const value = () => {
    const v = actor.getSnapshot().value;
    return typeof v === 'string' ? v : Object.keys(v)[0]!;
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return {
    state: value,
    dispose: () => actor.stop(),
    async step(event) {
      const from = value();
      switch (event.type) {
        case 'prepared':
          prepare!.resolve({ request: input.request, openTurn: null });
          await settle();
          expect(runtime, 'a running terminal has a runtime').not.toBeNull();
          break;
        case 'prepare_failed':
          prepare!.reject(new Error('no such pane'));
          await settle();
          expect(actor.getSnapshot().context.lastError).toBe('no such pane');
          break;
        case 'runtime_failed':
          runtime!.fail();
          expect(runtime, 'the failed runtime is stopped').toBeNull();
          expect(actor.getSnapshot().context.lastError).toBe('boom');
          break;
        case 'retool':
          runtime!.retool();
          expect(runtime, 'the runtime is stopped to prepare again').toBeNull();
          expect(actor.getSnapshot().context.request.tool).toBe('auto');
          expect(actor.getSnapshot().context.restarts, 'not a restart').toBe(restarts);
          break;
        case 'backoff_elapsed': {
          const wait = delayMs(restarts);
          clock.increment(wait - 1);
          expect(value(), 'still waiting just before the backoff ends').toBe('restarting');
          clock.increment(1);
          restarts += 1;
          expect(actor.getSnapshot().context.restarts).toBe(restarts);
          break;
        }
        case 'detach':
          actor.send({ type: 'evt_detach' });
          break;
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
      const now = value();
      if (now !== 'running' && now !== 'detached') {
        // Commands are answered by a running runtime only: none runs now.
        expect(runtime, `a runtime while ${now}`).toBeNull();
      }
      // The last published state stays readable whatever the lifecycle does.
      if (now !== 'detached')
        expect(actor.getSnapshot().context.state).toEqual({ marker: 'published' });
      return from === now ? [] : [{ from, event: event.type, to: now }];
    },
  };
}

specs.push({ name: 'terminal', model, inputs: [undefined], createSut: terminalSut });
