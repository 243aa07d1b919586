import type { SchedulerLike } from 'rxjs';
import type { CompletionObserver } from '../kernel/completion-driver.js';
import type { Journal } from '../journal/journal.js';
import type { ToolProfile } from '../profiles/types.js';
import type { KernelConfigInput } from '../schemas/kernel.js';
import type { RestoreFacts } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { TurnPayload } from '../schemas/turn-payload.js';
import type { TerminalHost } from '../kernel/charts.js';
import type { WitnessConfig } from './witness.js';

/** What a {@link TerminalPipeline} is built from. */
export interface PipelineOptions {
  terminalId: string;
  profile: ToolProfile;
  toolVersion?: string;
  /** The pane, as attached (shown in the public state). */
  target?: string;
  config?: KernelConfigInput;
  /** The clock: wakes the timers and tells the time (epoch ms live; virtual in replay). */
  scheduler?: SchedulerLike;
  /** Scheduler time (ms) that is observation time 0 (0 live: observation time is epoch seconds). */
  originMs?: number;
  /** Where the charts live; by default each is a root actor of its own. */
  site?: TerminalHost;
  /** The record stream; by default an in-memory one of its own. */
  journal?: Journal;
  /** What the journal remembers of this terminal (a restart continues from it). */
  restore?: RestoreFacts | null;
  observer?: CompletionObserver;
  /**
   * Completion authority with the CLI's session record as a second witness (docs/witness.md);
   * the screen alone when absent. Record events come in through `TerminalPipeline.sessionRecord`.
   */
  witness?: WitnessConfig;
  /** Session wall-clock budget (standalone site only; a terminal actor gives it to its chart). */
  watchdogBudgetSeconds?: number;
  /** The watchdog cancelled the session: interrupt the agent (only called while a turn runs). */
  interrupt?: () => Promise<void>;
  /**
   * Told each new public state before `state$` subscribers are (not the first one: read
   * `state`). One callback where a subscription would cost a terminal more memory.
   */
  onState?: (state: TerminalState) => void;
  /**
   * Told each turn's payload (docs/contracts.md §6) as it changes: started, ended, its record's
   * reply read late. It holds the reply text, so it never goes to the journal or the state.
   * None: no payloads are built.
   */
  onPayload?: (payload: TurnPayload) => void;
}
