import { assign, setup } from 'xstate';

/** Lifecycle events of one supervised terminal. */
export type TerminalEvent =
  | { type: 'evt_start' }
  | { type: 'evt_failed'; error: string }
  | { type: 'evt_restart' }
  | { type: 'evt_detach' };

export interface TerminalInput {
  terminalId: string;
}

/**
 * One supervised terminal's lifecycle. While `running`, its poll driver feeds the readiness,
 * completion (one per turn), turn-phase, last-turn, diagnostics and watchdog machines; those
 * effects are named here and provided by the runtime (`machine.provide`).
 */
export const terminalMachine = setup({
  types: {
    context: {} as { terminalId: string; restarts: number; lastError: string | null },
    input: {} as TerminalInput,
    events: {} as TerminalEvent,
  },
  actions: {
    start_polling: () => {},
    stop_polling: () => {},
    record_failure: assign({
      lastError: ({ event }) => (event.type === 'evt_failed' ? event.error : null),
    }),
    count_restart: assign({ restarts: ({ context }) => context.restarts + 1 }),
  },
}).createMachine({
  id: 'terminal',
  initial: 'attached',
  context: ({ input }) => ({ terminalId: input.terminalId, restarts: 0, lastError: null }),
  states: {
    attached: {
      on: { evt_start: { target: 'running' }, evt_detach: { target: 'detached' } },
    },
    running: {
      entry: 'start_polling',
      exit: 'stop_polling',
      on: {
        evt_failed: { target: 'failed', actions: 'record_failure' },
        evt_detach: { target: 'detached' },
      },
    },
    failed: {
      on: {
        evt_restart: { target: 'running', actions: 'count_restart' },
        evt_detach: { target: 'detached' },
      },
    },
    detached: { type: 'final' },
  },
});

export type TerminalLifecycleState = 'attached' | 'running' | 'failed' | 'detached';
