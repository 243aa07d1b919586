import { assign, emit, enqueueActions, setup } from 'xstate';

/** How restarts of a spawned CLI are bounded (docs/spawn.md): the backoff and the limit. */
export interface RespawnLimits {
  /** Delay before the first restart, doubled for each restart in the window (seconds). */
  initialSeconds: number;
  /** The cap of that delay (seconds). */
  maxSeconds: number;
  /** At most this many restarts within `windowSeconds`; one more failure gives up. */
  limit: number;
  windowSeconds: number;
}

/** How the CLI ended: its exit status or signal, and when (epoch ms). */
export interface CliExit {
  status: number | null;
  signal: string | null;
  at: number;
}

/** Events of the respawn chart; times are epoch milliseconds. */
export type RespawnEvent =
  | ({ type: 'evt_cli_died' } & CliExit)
  | { type: 'evt_backoff_elapsed' }
  | { type: 'evt_respawned'; at: number }
  | { type: 'evt_respawn_failed' }
  | { type: 'evt_stop_requested' }
  | { type: 'evt_stop_failed' }
  | { type: 'evt_released' };

/** What the chart asks of its driver. */
export type RespawnRequest =
  | { type: 'backoff.start'; delaySeconds: number }
  | { type: 'backoff.cancel' }
  | { type: 'respawn'; attempt: number; delaySeconds: number; exit: CliExit }
  | { type: 'gave_up'; restarts: number; exit: CliExit; reason: string };

export interface RespawnInput {
  policy: 'never' | 'on-failure';
  limits: RespawnLimits;
}

export interface RespawnContext {
  policy: 'never' | 'on-failure';
  limits: RespawnLimits;
  /** When each restart still inside the limit's window happened (epoch ms). */
  restartTimes: number[];
  /** Restarts so far. */
  restarts: number;
  lastExit: CliExit | null;
  /** The delay of the restart waiting or under way (seconds). */
  delaySeconds: number;
  gaveUp: { reason: string; at: number } | null;
}

type Died = Extract<RespawnEvent, { type: 'evt_cli_died' }>;
const died = (event: RespawnEvent): Died => event as Died;
const exitOf = (e: Died): CliExit => ({ status: e.status, signal: e.signal, at: e.at });

/** The restarts inside the window that ends at `at`. */
const inWindow = (c: RespawnContext, at: number): number[] =>
  c.restartTimes.filter((t) => at - t < c.limits.windowSeconds * 1000);

const how = (e: CliExit): string => (e.signal ? `signal ${e.signal}` : `status ${e.status}`);

/**
 * The restart policy of a CLI paneward started (docs/spawn.md): a death under `on-failure` that
 * is not a clean exit waits a backoff (doubling per restart in the window, capped) and starts
 * the CLI again in its pane; one death more than the limit allows within the window gives up. A
 * clean exit (status 0: someone typed the exit command) and every death under `never` end it.
 * While paneward itself ends the CLI (`stop`) its death is no failure. The driver keeps the
 * backoff timer, runs the respawn and journals what the chart emits.
 */
export const respawnMachine = setup({
  types: {
    context: {} as RespawnContext,
    input: {} as RespawnInput,
    events: {} as RespawnEvent,
    emitted: {} as RespawnRequest,
  },
  guards: {
    /** Status 0 and no signal: the CLI was asked to exit, not a failure. */
    clean_exit: ({ event }) => died(event).status === 0 && died(event).signal === null,
    restarts_off: ({ context }) => context.policy !== 'on-failure',
    /** As many restarts in the window as the limit allows already: this death is one too many. */
    over_limit: ({ context, event }) =>
      inWindow(context, died(event).at).length >= context.limits.limit,
  },
  actions: {
    record_exit: assign(({ context, event }) => ({
      lastExit: exitOf(died(event)),
      restartTimes: inWindow(context, died(event).at),
    })),
    plan_backoff: assign(({ context }) => ({
      delaySeconds: Math.min(
        context.limits.maxSeconds,
        context.limits.initialSeconds * 2 ** context.restartTimes.length,
      ),
    })),
    give_up: enqueueActions(({ context, event, enqueue }) => {
      const e = died(event);
      const n = inWindow(context, e.at).length + 1;
      const reason = `the CLI died ${n} times within ${context.limits.windowSeconds} s (last: ${how(e)}); restarts gave up at the limit of ${context.limits.limit}`;
      enqueue.assign({ gaveUp: { reason, at: e.at } });
      enqueue.emit({ type: 'gave_up', restarts: context.restarts, exit: exitOf(e), reason });
    }),
    start_backoff: emit(({ context }) => ({
      type: 'backoff.start' as const,
      delaySeconds: context.delaySeconds,
    })),
    cancel_backoff: emit({ type: 'backoff.cancel' as const }),
    respawn: emit(({ context }) => ({
      type: 'respawn' as const,
      attempt: context.restarts + 1,
      delaySeconds: context.delaySeconds,
      exit: context.lastExit ?? { status: null, signal: null, at: 0 },
    })),
    count_restart: assign(({ context, event }) => ({
      restarts: context.restarts + 1,
      restartTimes: [
        ...context.restartTimes,
        (event as Extract<RespawnEvent, { type: 'evt_respawned' }>).at,
      ],
    })),
  },
}).createMachine({
  id: 'respawn',
  initial: 'running',
  context: ({ input }) => ({
    policy: input.policy,
    limits: input.limits,
    restartTimes: [],
    restarts: 0,
    lastExit: null,
    delaySeconds: 0,
    gaveUp: null,
  }),
  on: { evt_released: '.released' },
  states: {
    running: {
      on: {
        evt_cli_died: [
          { guard: 'clean_exit', target: 'ended', actions: 'record_exit' },
          { guard: 'restarts_off', target: 'ended', actions: 'record_exit' },
          { guard: 'over_limit', target: 'gave_up', actions: ['give_up', 'record_exit'] },
          { target: 'backing_off', actions: ['record_exit', 'plan_backoff'] },
        ],
        evt_stop_requested: 'exiting',
      },
    },
    /** paneward asked the CLI to exit: its death is no failure. */
    exiting: {
      on: { evt_stop_failed: 'running' },
    },
    backing_off: {
      entry: 'start_backoff',
      exit: 'cancel_backoff',
      on: {
        evt_backoff_elapsed: 'respawning',
        evt_stop_requested: 'exiting',
      },
    },
    respawning: {
      entry: 'respawn',
      on: {
        evt_respawned: { target: 'running', actions: 'count_restart' },
        evt_respawn_failed: 'running',
        evt_stop_requested: 'exiting',
      },
    },
    /**
     * The CLI ended and is not started again (a clean exit, or the policy is `never`); a stop
     * then finds the pane already dead, and nothing here waits for it.
     */
    ended: {},
    gave_up: {},
    /** The supervisor stopped or forgot the terminal: nothing waits or starts any more. */
    released: { type: 'final' },
  },
});

export type RespawnState =
  'running' | 'exiting' | 'backing_off' | 'respawning' | 'ended' | 'gave_up' | 'released';
