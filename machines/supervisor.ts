import { enqueueActions, fromPromise, setup, stopChild } from 'xstate';
import { respawnMachine, type RespawnInput } from './respawn.js';
import { terminalMachine, type TerminalInput } from './terminal.js';

/** Events of the supervisor: terminals come and go by id at run time. */
export type SupervisorEvent =
  | { type: 'evt_attach'; terminal: TerminalInput }
  | { type: 'evt_detach'; terminalId: string }
  /** A pane paneward started itself: its respawn chart starts beside its terminal. */
  | { type: 'evt_owned'; terminalId: string; respawn: RespawnInput }
  | { type: 'evt_released'; terminalId: string }
  | { type: 'evt_stop' };

/**
 * The child id of an owned terminal's respawn chart. A terminal id has no colon, so it never
 * names a terminal.
 */
export const respawnChildId = (terminalId: string): string => `respawn:${terminalId}`;

/**
 * The supervisor: one terminal actor per attached pane, spawned as its child with the
 * terminal id as both its id and its system id (so `system.get(id)` finds it), and stopped on
 * detach. A terminal restarts its own runtime; whatever one terminal does, the supervisor and
 * the others keep running. A pane paneward started itself (`paneward spawn`) has its respawn
 * chart as a child too, from the spawn until the terminal is stopped or forgotten. Stopping
 * stops every child, then flushes what the runtime must
 * keep (the journal).
 */
export const supervisorMachine = setup({
  types: {
    events: {} as SupervisorEvent,
  },
  actors: {
    terminal: terminalMachine,
    respawn: respawnMachine,
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
    spawn_respawn: enqueueActions(
      ({ enqueue }, owned: { terminalId: string; respawn: RespawnInput }) => {
        enqueue.spawnChild('respawn', {
          id: respawnChildId(owned.terminalId),
          input: owned.respawn,
        });
      },
    ),
    stop_respawn: stopChild((_, terminalId: string) => respawnChildId(terminalId)),
    // Runs on entering `stopping`, before its flush is invoked: every child is a terminal (one
    // attached under the id `flush` too) or a respawn chart.
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
        evt_owned: { actions: { type: 'spawn_respawn', params: ({ event }) => event } },
        evt_released: {
          actions: { type: 'stop_respawn', params: ({ event }) => event.terminalId },
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
