import { setup } from 'xstate';

/** Events of the session watchdog (statecharts.md §7); the deadline comes from the driver. */
export type WatchdogEvent =
  | { type: 'evt_session_started' }
  | { type: 'evt_wall_clock_exceeded' }
  | { type: 'evt_session_finished' }
  | { type: 'evt_session_resumed' };

export interface WatchdogInput {
  /** Wall-clock budget of one session in seconds; 0 disables the watchdog. */
  budgetSeconds: number;
}

/** Bounds a supervised session's wall-clock time and remembers that it cancelled one. */
export const watchdogMachine = setup({
  types: {
    context: {} as { budgetSeconds: number },
    input: {} as WatchdogInput,
    events: {} as WatchdogEvent,
  },
  guards: {
    budget_enabled: ({ context }) => context.budgetSeconds > 0,
  },
}).createMachine({
  id: 'watchdog',
  initial: 'disabled',
  context: ({ input }) => ({ budgetSeconds: input?.budgetSeconds ?? 14400 }),
  states: {
    disabled: {
      on: {
        evt_session_started: { guard: 'budget_enabled', target: 'armed' },
        evt_session_finished: { target: 'finished' },
      },
    },
    armed: {
      on: {
        evt_wall_clock_exceeded: { target: 'fired' },
        evt_session_finished: { target: 'finished' },
      },
    },
    fired: {
      on: {
        evt_session_resumed: { target: 'armed' },
        evt_session_finished: { target: 'finished' },
      },
    },
    finished: { type: 'final' },
  },
});

export type WatchdogState = 'disabled' | 'armed' | 'fired' | 'finished';
