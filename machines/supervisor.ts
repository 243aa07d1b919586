import { assign, setup } from 'xstate';

/** Events of the supervisor: terminals come and go by id at run time. */
export type SupervisorEvent =
  | { type: 'evt_attach'; terminalId: string }
  | { type: 'evt_detach'; terminalId: string }
  | { type: 'evt_terminal_failed'; terminalId: string; error: string }
  | { type: 'evt_restart_due'; terminalId: string }
  | { type: 'evt_stop' };

export interface SupervisedTerminal {
  restarts: number;
  status: 'running' | 'restarting';
  lastError: string | null;
}

/**
 * The supervisor: spawns a terminal actor per attached id, restarts one whose actor failed
 * (the backoff delay comes from the runtime's driver as `evt_restart_due`), and keeps running
 * whatever one terminal does. Effects are named here and provided by the runtime.
 */
export const supervisorMachine = setup({
  types: {
    context: {} as { terminals: Record<string, SupervisedTerminal> },
    events: {} as SupervisorEvent,
  },
  actions: {
    spawn_terminal: (_, _params: { terminalId: string }) => {},
    stop_terminal: (_, _params: { terminalId: string }) => {},
    schedule_restart: (_, _params: { terminalId: string; attempt: number }) => {},
    stop_all: () => {},
  },
  guards: {
    is_attached: ({ context, event }) =>
      'terminalId' in event && event.terminalId in context.terminals,
    is_new: ({ context, event }) =>
      'terminalId' in event && !(event.terminalId in context.terminals),
  },
}).createMachine({
  id: 'supervisor',
  initial: 'running',
  context: { terminals: {} },
  states: {
    running: {
      on: {
        evt_attach: {
          guard: 'is_new',
          actions: [
            assign({
              terminals: ({ context, event }) => ({
                ...context.terminals,
                [event.terminalId]: { restarts: 0, status: 'running', lastError: null },
              }),
            }),
            { type: 'spawn_terminal', params: ({ event }) => ({ terminalId: event.terminalId }) },
          ],
        },
        evt_detach: {
          guard: 'is_attached',
          actions: [
            { type: 'stop_terminal', params: ({ event }) => ({ terminalId: event.terminalId }) },
            assign({
              terminals: ({ context, event }) => {
                const { [event.terminalId]: _gone, ...rest } = context.terminals;
                return rest;
              },
            }),
          ],
        },
        evt_terminal_failed: {
          guard: 'is_attached',
          actions: [
            assign({
              terminals: ({ context, event }) => ({
                ...context.terminals,
                [event.terminalId]: {
                  restarts: context.terminals[event.terminalId]!.restarts,
                  status: 'restarting',
                  lastError: event.error,
                },
              }),
            }),
            {
              type: 'schedule_restart',
              params: ({ context, event }) => ({
                terminalId: event.terminalId,
                attempt: context.terminals[event.terminalId]!.restarts + 1,
              }),
            },
          ],
        },
        evt_restart_due: {
          guard: 'is_attached',
          actions: [
            assign({
              terminals: ({ context, event }) => ({
                ...context.terminals,
                [event.terminalId]: {
                  ...context.terminals[event.terminalId]!,
                  restarts: context.terminals[event.terminalId]!.restarts + 1,
                  status: 'running',
                },
              }),
            }),
            { type: 'spawn_terminal', params: ({ event }) => ({ terminalId: event.terminalId }) },
          ],
        },
        evt_stop: { target: 'stopped' },
      },
    },
    stopped: { type: 'final', entry: 'stop_all' },
  },
});
