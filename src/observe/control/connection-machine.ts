import type { SourceHealth } from '../types.js';

/** The control client's connection states (reported as `SourceHealth.connection`). */
export type ConnectionState = SourceHealth['connection'];

/**
 * What happens to the connection: `start` the loop begins an attempt; `no_server` listing the
 * sessions found no tmux server (or no session); `failed` the listing or the client's start
 * failed otherwise; `attached` a client is attached; `exited` the attached client ended, after
 * running `ranMs`; `close` the source is closed.
 */
export type ConnectionEvent =
  | { type: 'start' }
  | { type: 'no_server' }
  | { type: 'failed' }
  | { type: 'attached' }
  | { type: 'exited'; ranMs: number }
  | { type: 'close' };

/** Delay before the next attempt after a failure: first and cap, ms. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The connection: its state, the backoff it is at, and how long to wait before trying again. */
export interface Connection {
  readonly state: ConnectionState;
  /** The next failure's wait (doubles per failure up to the cap). */
  readonly delayMs: number;
  /** Times an attached client ended and was started again. */
  readonly restarts: number;
  /** How long to wait before the next attempt, set by the last failure; null otherwise. */
  readonly waitMs: number | null;
}

/**
 * Every transition, and only these: an event a state does not list leaves the connection as
 * it is (the same object). `closed` is final.
 */
export const CONNECTION_TRANSITIONS: {
  readonly [S in ConnectionState]: Partial<Record<ConnectionEvent['type'], ConnectionState>>;
} = {
  idle: { start: 'connecting', close: 'closed' },
  connecting: {
    no_server: 'server_missing',
    failed: 'reconnecting',
    attached: 'connected',
    close: 'closed',
  },
  reconnecting: {
    no_server: 'server_missing',
    failed: 'reconnecting',
    attached: 'connected',
    close: 'closed',
  },
  server_missing: {
    no_server: 'server_missing',
    failed: 'reconnecting',
    attached: 'connected',
    close: 'closed',
  },
  connected: { exited: 'reconnecting', close: 'closed' },
  closed: {},
};

/** A client that ran this long was fine: its end is answered with the first, short wait. */
export const HEALTHY_RUN_MS = 10_000;
/** While there is no server, it is looked for again at least this often. */
const SERVER_MISSING_MAX_WAIT_MS = 2000;

export function initialConnection(backoff: Backoff): Connection {
  return { state: 'idle', delayMs: backoff.initialMs, restarts: 0, waitMs: null };
}

/** The connection after `event`: the state from the table, the backoff and the wait. */
export function transition(c: Connection, event: ConnectionEvent, backoff: Backoff): Connection {
  const state = CONNECTION_TRANSITIONS[c.state][event.type];
  if (state === undefined) return c;
  const doubled = (ms: number): number => Math.min(ms * 2, backoff.maxMs);
  switch (event.type) {
    case 'no_server':
      return {
        ...c,
        state,
        waitMs: Math.min(c.delayMs, SERVER_MISSING_MAX_WAIT_MS),
        delayMs: doubled(c.delayMs),
      };
    case 'failed':
      return { ...c, state, waitMs: c.delayMs, delayMs: doubled(c.delayMs) };
    case 'exited': {
      // A quick re-attach is the right first answer to a client that ran a while.
      const wait = event.ranMs > HEALTHY_RUN_MS ? backoff.initialMs : c.delayMs;
      return { ...c, state, restarts: c.restarts + 1, waitMs: wait, delayMs: doubled(wait) };
    }
    default:
      return { ...c, state, waitMs: null };
  }
}
