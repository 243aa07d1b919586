import { assign, emit, setup } from 'xstate';

/** Events of the session watchdog (docs/statecharts.md §7); `at` is observation time (seconds). */
export type WatchdogEvent =
  | { type: 'evt_session_started'; at: number }
  | { type: 'evt_wall_clock_exceeded'; at: number }
  | { type: 'evt_session_finished' }
  | { type: 'evt_session_resumed'; at: number };

/** What the chart asks of its driver: the window's deadline, and the cancellation of a session over budget. */
export type WatchdogRequest =
  | { type: 'deadline.start'; due: number }
  | { type: 'deadline.cancel' }
  | { type: 'session.cancel'; sessionStartedAt: number; firedAt: number; budgetSeconds: number };

export interface WatchdogInput {
  /** Wall-clock budget of one session in seconds; 0 (the default) disables the watchdog. */
  budgetSeconds?: number;
}

export interface WatchdogContext {
  budgetSeconds: number;
  /** Start of the current window (observation seconds); persisted, so a restart continues it. */
  sessionStartedAt: number | null;
}

const at = ({ event }: { event: WatchdogEvent }): number | null =>
  'at' in event ? event.at : null;

/**
 * Bounds a supervised session's wall-clock time. Armed only with a positive budget; the
 * deadline is the window's start plus the budget, kept by the driver (`deadline.*` emitted,
 * `evt_wall_clock_exceeded` back). Exceeding it asks the driver to cancel the session
 * (`session.cancel`: journal the cancel record, then interrupt a running turn) and leaves the
 * window `fired` until an explicit resume opens a fresh one.
 */
export const watchdogMachine = setup({
  types: {
    context: {} as WatchdogContext,
    input: {} as WatchdogInput,
    events: {} as WatchdogEvent,
    emitted: {} as WatchdogRequest,
  },
  guards: {
    budget_enabled: ({ context }) => context.budgetSeconds > 0,
  },
  actions: {
    open_window: assign({ sessionStartedAt: at }),
    start_deadline: emit(({ context }) => ({
      type: 'deadline.start' as const,
      due: (context.sessionStartedAt ?? 0) + context.budgetSeconds,
    })),
    cancel_deadline: emit({ type: 'deadline.cancel' as const }),
    cancel_session: emit(({ context, event }) => ({
      type: 'session.cancel' as const,
      sessionStartedAt: context.sessionStartedAt ?? 0,
      firedAt: at({ event }) ?? 0,
      budgetSeconds: context.budgetSeconds,
    })),
  },
}).createMachine({
  id: 'watchdog',
  initial: 'disabled',
  context: ({ input }) => ({ budgetSeconds: input?.budgetSeconds ?? 0, sessionStartedAt: null }),
  states: {
    disabled: {
      on: {
        evt_session_started: { guard: 'budget_enabled', target: 'armed', actions: 'open_window' },
        evt_session_finished: { target: 'finished' },
      },
    },
    armed: {
      entry: 'start_deadline',
      exit: 'cancel_deadline',
      on: {
        evt_wall_clock_exceeded: { target: 'fired', actions: 'cancel_session' },
        evt_session_finished: { target: 'finished' },
      },
    },
    fired: {
      on: {
        evt_session_resumed: { target: 'armed', actions: 'open_window' },
        evt_session_finished: { target: 'finished' },
      },
    },
    finished: { type: 'final' },
  },
});

export type WatchdogState = 'disabled' | 'armed' | 'fired' | 'finished';
