import type { TerminalState } from '../../src/schemas/terminal-state.js';
import type { OutcomeWitness } from '../../src/terminal/witness.js';

/**
 * How an explicit turn ended, as `lastTurn.result` must report it. `none`: never an outcome and
 * never completed (the input made no model request). `unknown`: the turn ended (completion
 * `completed`, never before the true end) but the screen has no marker that tells how, so no
 * outcome may be reported: never a guessed success.
 */
export type TurnOutcome = 'success' | 'interrupted' | 'known_failure' | 'none' | 'unknown';

/** What the replay of one recording must show. */
export interface ScenarioExpectation {
  /** The outcome of each explicit turn (`turn-1`, `turn-2`, ...), in input order. */
  turns: TurnOutcome[];
  /**
   * The recording holds the CLI's session record: which witness must decide each turn's outcome
   * (`lastTurn.witness` when it is first reported), in turn order. A turn without an outcome
   * has none.
   */
  witnesses?: ReadonlyArray<OutcomeWitness | null>;
  /** Public state after the last line (and the windows after it) played out. */
  final?: {
    diagnostics?: TerminalState['diagnostics']['availability'];
    readiness?: TerminalState['readiness']['status'];
  };
  /**
   * Text of a dialog that holds the agent: on every frame showing it, readiness (and the running
   * turn's completion) must be `blocked`, and the first frame after it must release that.
   */
  dialog?: string;
  /**
   * The chat context's trouble the recording shows: states read `degraded` with this diagnostic,
   * never before the frame showing the CLI's own message, and the recording ends so (unless
   * `cleared`). Without it, no state of the recording may read `degraded`.
   */
  chatContext?: {
    degradedErrorType: string;
    shownBy: RegExp;
    /** A later prompt put the message into history: the recording ends `current` again. */
    cleared?: boolean;
  };
  /**
   * Turns (their 1-based numbers) whose prompt the CLI refused itself, before any model request
   * (a prompt counted over the context window): no true end to compare with, so their outcome,
   * the screen's alone, is checked as expected and reported once (`unknown`: none, the turn
   * over all the same).
   */
  unsent?: readonly number[];
  /** The turn's model stream hangs until the user interrupts it: the turn stays in progress. */
  hang?: boolean;
  /**
   * The turn ends on a key the user presses after its last request (Escape while a retry
   * waits): the screen's drawing delay after that request is not measured.
   */
  endedByKey?: boolean;
  /**
   * On the interrupt the CLI stops reading the stream but leaves the request open (grok-cli
   * does not abort it): the server's end is not the turn's end, so only the outcome is checked.
   */
  abandonsStream?: boolean;
  /**
   * The tool's render allowance for this one recording, where it was measured apart (a newer
   * version recorded on a more loaded machine): see {@link ToolExpectations.renderAllowanceSeconds}.
   */
  renderAllowanceSeconds?: number;
  /**
   * A known weakness of the current profile makes these replays fail (`submitted`: with the
   * submit times, `screen_alone`: without, `recognised`: a frame matches no known shape): those tests are kept and marked as failing, with the
   * reason, until the profile is fixed; never loosened.
   */
  knownProfileWeakness?: {
    reason: string;
    failing: ReadonlyArray<'submitted' | 'screen_alone' | 'recognised'>;
  };
}

/** Per-tool facts and the table of scenarios. */
export interface ToolExpectations {
  /** Seen in the frame where the empty prompt box is first drawn (a UI string of the CLI). */
  inputBox: RegExp;
  /**
   * How late, beyond one poll, the CLI may draw a finished turn after its stream truly ended
   * (measured on these recordings; the reason is given per tool).
   */
  renderAllowanceSeconds: number;
  scenarios: Record<string, ScenarioExpectation>;
}

import { claudeCode } from './expectations/claude_code.js';
import { cline } from './expectations/cline.js';
import { codex } from './expectations/codex.js';
import { copilot } from './expectations/copilot.js';
import { geminiCli } from './expectations/gemini_cli.js';
import { grokCli } from './expectations/grok_cli.js';
import { kilo } from './expectations/kilo.js';
import { opencode } from './expectations/opencode.js';
import { pi } from './expectations/pi.js';
import { qwenCode } from './expectations/qwen_code.js';

/** Each tool's table lives in its own file under expectations/. */
export const EXPECTATIONS: Record<string, ToolExpectations> = {
  claude_code: claudeCode,
  codex,
  gemini_cli: geminiCli,
  opencode,
  copilot,
  pi,
  grok_cli: grokCli,
  kilo,
  cline,
  qwen_code: qwenCode,
};
