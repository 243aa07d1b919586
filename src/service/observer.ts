import type { SourceHealth } from '../observe/frame-source.js';
import type { ObserverView } from '../schemas/operations/index.js';

/** What `/healthz` (and a fleet edge's heartbeat) says of the observer's own health. */
export function observerView(h: SourceHealth | null): ObserverView | null {
  return h === null
    ? null
    : {
        source: h.kind,
        connection: h.connection,
        lagging: h.lagging,
        lagMs: h.lagMs,
        backlog: h.backlog,
        degraded: h.degraded,
        pausedPanes: h.pausedPanes,
      };
}
