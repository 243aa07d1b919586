import type { ControlNotification } from '../control-protocol.js';
import type { FlowState } from './context.js';
import { markDirty, markUrgent } from './watches.js';

/** What a notification asks of the source beyond the marks it made. */
export interface Routed {
  /** An unwatched pane whose output to turn off for this client. */
  turnOff: string | null;
  /** Some pane became urgent: capture it at once. */
  urgent: boolean;
}

const NOTHING: Routed = { turnOff: null, urgent: false };

/**
 * Routes one control-mode notification (client event `seq`) to the watched panes it concerns:
 * `%output` marks a pane dirty (and counts its bytes for flood pausing), `%pause` marks it and
 * counts the pause, a pane, window or session event makes panes urgent.
 */
export function routeNotification(n: ControlNotification, seq: number, s: FlowState): Routed {
  const watches = s.watches;
  switch (n.type) {
    case 'output': {
      s.bytes.set(n.paneId, (s.bytes.get(n.paneId) ?? 0) + n.bytes);
      const watching = watches.pane(n.paneId);
      if (watching) {
        for (const w of watching) markDirty(w, 'output', seq);
      } else if (s.outputOff && !s.off.has(n.paneId) && !watches.anyUnresolved()) {
        // Nobody watches this pane: stop tmux sending its output to this client.
        s.off.add(n.paneId);
        return { turnOff: n.paneId, urgent: false };
      }
      return NOTHING;
    }
    case 'pause':
      s.paused.add(n.paneId);
      s.pauses += 1;
      for (const w of watches.pane(n.paneId) ?? []) markDirty(w, 'flow', seq);
      return NOTHING;
    case 'continue':
      s.paused.delete(n.paneId);
      return NOTHING;
    case 'pane-mode-changed':
      for (const w of watches.pane(n.paneId) ?? []) markUrgent(w, 'lifecycle');
      break;
    case 'layout-change':
    case 'window-close':
    case 'unlinked-window-close':
      for (const w of watches.window(n.windowId) ?? []) markUrgent(w, 'lifecycle');
      if (n.type !== 'layout-change') s.activity.delete(n.windowId);
      break;
    case 'window-add':
    case 'unlinked-window-add':
    case 'sessions-changed':
    case 'session-renamed':
      // A target by name may now mean another pane, and a missing one may exist again.
      for (const w of watches.all) {
        if (!w.sampling.target.startsWith('%') || w.lastTransport !== 'tmux_up') {
          markUrgent(w, 'lifecycle');
        }
      }
      break;
    case 'session-changed':
      s.attachedSession = n.sessionId;
      break;
    default:
      return NOTHING;
  }
  return { turnOff: null, urgent: true };
}
