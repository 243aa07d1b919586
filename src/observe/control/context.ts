import type { ControlClient } from '../control-client.js';
import type { ControlReply } from '../control-protocol.js';
import type { ResolvedOptions } from './options.js';
import type { WatchIndex } from './watches.js';

/** The source's flow state, shared by the notification routing, the chores and the batches. */
export interface FlowState {
  readonly watches: WatchIndex;
  /** Panes tmux or the source paused for this client. */
  readonly paused: Set<string>;
  /** Unwatched panes whose output the source turned off. */
  readonly off: Set<string>;
  /** Output bytes per pane since the last chores tick. */
  readonly bytes: Map<string, number>;
  /** Off-session windows: their last `activity layout` key. */
  readonly activity: Map<string, string>;
  attachedSession: string | null;
  /** Whether this server can turn a pane's output off safely (see `canTurnOutputOff`). */
  outputOff: boolean;
  pauses: number;
}

/** What the parts of the control-mode source (batches, chores) reach of the source. */
export interface SourceContext {
  readonly o: ResolvedOptions;
  readonly signal: AbortSignal;
  readonly watches: WatchIndex;
  readonly flow: FlowState;
  /** The attached client, or null between clients. */
  client(): ControlClient | null;
  /** When this process last ran the tick late (its own stall, not tmux's silence). */
  lastLateAt(): number;
  /** Capture the urgent panes at once (after the current burst of events). */
  queueUrgent(): void;
  command(client: ControlClient, line: string): Promise<ControlReply>;
  fireAndForget(client: ControlClient, line: string): void;
}
