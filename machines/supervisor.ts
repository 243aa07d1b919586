import { enqueueActions, fromPromise, setup, stopChild } from 'xstate';
import { terminalMachine, type TerminalInput } from './terminal.js';

/** Events of the supervisor: terminals come and go by id at run time. */
export type SupervisorEvent =
  | { type: 'evt_attach'; terminal: TerminalInput }
  | { type: 'evt_detach'; terminalId: string }
  | { type: 'evt_stop' };

/**
 * The supervisor: one terminal actor per attached pane, spawned as its child with the
 * terminal id as both its id and its system id (so `system.get(id)` finds it), and stopped on
 * detach. A terminal restarts its own runtime; whatever one terminal does, the supervisor and
 * the others keep running. Stopping stops every terminal, then flushes what the runtime must
 * keep (the journal).
 */
export const supervisorMachine = setup({
  types: {
    events: {} as SupervisorEvent,
  },
  actors: {
    terminal: terminalMachine,
    /** Provided by the runtime: makes everything recorded durable before the supervisor ends. */
    flush: fromPromise<void>(async () => {}),
  },
  actions: {
    spawn_terminal: enqueueActions(({ enqueue }, terminal: TerminalInput) => {
      enqueue.spawnChild('terminal', {
        id: terminal.terminalId,
        systemId: terminal.terminalId,
        input: terminal,
      });
    }),
    stop_terminal: stopChild((_, terminalId: string) => terminalId),
    // Runs on entering `stopping`, before its flush is invoked: every child is a terminal (one
    // attached under the id `flush` too).
    stop_all_terminals: enqueueActions(({ enqueue, self }) => {
      for (const id of Object.keys(self.getSnapshot().children)) enqueue.stopChild(id);
    }),
  },
}).createMachine({
  id: 'supervisor',
  initial: 'running',
  states: {
    running: {
      on: {
        evt_attach: { actions: { type: 'spawn_terminal', params: ({ event }) => event.terminal } },
        evt_detach: {
          actions: { type: 'stop_terminal', params: ({ event }) => event.terminalId },
        },
        evt_stop: { target: 'stopping' },
      },
    },
    stopping: {
      entry: 'stop_all_terminals',
      invoke: { id: 'flush', src: 'flush', onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
