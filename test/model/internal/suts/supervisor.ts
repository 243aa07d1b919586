import { expect } from 'vitest';
import { assign, createActor, createMachine, fromPromise, setup } from 'xstate';
import { supervisorMachine } from '../../../../machines/supervisor.js';
import type { TerminalInput } from '../../../../machines/terminal.js';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];

/**
 * The test model of the supervisor actor, from the issue's words: terminals are attached and
 * detached by id at run time while it runs; stopping stops every terminal, then waits for what
 * must be kept to be flushed. Two terminal ids are enough to tell one terminal from all.
 */
const model = setup({
  types: { context: {} as { a: boolean; b: boolean; detaches: number } },
  guards: {
    a_out: ({ context }) => !context.a,
    a_in: ({ context }) => context.a,
    b_out: ({ context }) => !context.b,
    b_in: ({ context }) => context.b,
  },
}).createMachine({
  id: 'supervisor-model',
  initial: 'running',
  context: { a: false, b: false, detaches: 0 },
  states: {
    running: {
      on: {
        attach_a: { guard: 'a_out', actions: assign({ a: true }) },
        attach_b: { guard: 'b_out', actions: assign({ b: true }) },
        // Detaches are counted (up to one) so that paths through a detach exist.
        detach_a: { guard: 'a_in', actions: assign({ a: false, detaches: 1 }) },
        detach_b: { guard: 'b_in', actions: assign({ b: false, detaches: 1 }) },
        stop: 'stopping',
      },
    },
    stopping: { entry: assign({ a: false, b: false }), on: { flushed: 'stopped' } },
    stopped: { type: 'final' },
  },
});

/** A stand-in terminal: the supervisor's behaviour does not depend on what a terminal does. */
const stubTerminal = createMachine({
  id: 'stub-terminal',
  initial: 'running',
  states: { running: {} },
});

/**
 * The real supervisor machine with a stand-in terminal and a flush the test releases; after
 * each step its children must be exactly the attached terminals, each under its id and system
 * id, and stopping must not end before the flush.
 */
function supervisorSut(_input: unknown, machines?: MachineOverrides): Sut {
  let flushed: (() => void) | null = null;
  const actor = createActor(
    (machines?.supervisor ?? supervisorMachine).provide({
      actors: {
        terminal: stubTerminal as never,
        flush: fromPromise(() => new Promise<void>((r) => (flushed = r))),
      },
    }),
  ).start();
  const attached = new Set<string>();
  const terminal = (id: string): TerminalInput =>
    ({ terminalId: id, request: { target: '%1', tool: 'x' } }) as TerminalInput;
  const value = () => String(actor.getSnapshot().value);
  return {
    state: value,
    dispose: () => actor.stop(),
    async step(event) {
      const from = value();
      const [verb, id] = event.type.split('_') as [string, string | undefined];
      if (verb === 'attach') {
        attached.add(id!);
        actor.send({ type: 'evt_attach', terminal: terminal(id!) });
      } else if (verb === 'detach') {
        attached.delete(id!);
        actor.send({ type: 'evt_detach', terminalId: id! });
      } else if (verb === 'stop') {
        attached.clear();
        actor.send({ type: 'evt_stop' });
        await new Promise((r) => setTimeout(r, 0));
        expect(value(), 'stopping waits for the flush').toBe('stopping');
      } else if (verb === 'flushed') {
        flushed!();
        await new Promise((r) => setTimeout(r, 0));
      } else throw new Error(`no raw input for ${event.type}`);
      const children = Object.keys(actor.getSnapshot().children).filter((c) => c !== 'flush');
      expect(children.sort()).toEqual([...attached].sort());
      for (const c of children) expect(actor.system.get(c)).toBe(actor.getSnapshot().children[c]);
      const to = value();
      return from === to ? [] : [{ from, event: event.type, to }];
    },
  };
}

specs.push({ name: 'supervisor', model, inputs: [undefined], createSut: supervisorSut });
