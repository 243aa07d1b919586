// The hosts, panes and outage of the fleet fault test, an edge's parts, and a state compared
// between an edge and the fleet.
import type { AgentSession } from '../../e2e/harness/session.js';
import type { Proxy, Serve } from './harness.js';

export const HOSTS = ['host-a', 'host-b', 'host-c'] as const;
export type Host = (typeof HOSTS)[number];
export const PANES = 2;
export const OUTAGE_MS = 30_000;

export interface Edge {
  host: Host;
  dataDir: string;
  sessions: AgentSession[];
  proxy: Proxy;
  serve: Serve;
}

export const enc = encodeURIComponent;

/**
 * The public state without what only the clock changes, the fleet's additions, and the edge's
 * own (`paneId`: its tmux's, which a fleet server's view leaves out).
 */
export function comparable(state: Record<string, unknown>): Record<string, unknown> {
  const {
    t: _t,
    operations: _o,
    host: _h,
    paneId: _p,
    terminalId,
    stability,
    ...rest
  } = state as {
    t: number;
    operations: unknown;
    host: unknown;
    paneId?: string;
    terminalId: string;
    stability: { stable: boolean };
  };
  return {
    ...rest,
    terminalId: terminalId.slice(terminalId.indexOf('/') + 1),
    stability: { stable: stability.stable },
  };
}
