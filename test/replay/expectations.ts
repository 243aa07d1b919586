import type { TerminalState } from '../../src/schemas/terminal-state.js';

/** How an explicit turn ended, as `lastTurn.result` must report it (`none`: never an outcome). */
export type TurnOutcome = 'success' | 'interrupted' | 'known_failure' | 'none';

/** What the replay of one recording must show. */
export interface ScenarioExpectation {
  /** The outcome of each explicit turn (`turn-1`, `turn-2`, ...), in input order. */
  turns: TurnOutcome[];
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
  /** The turn's model stream hangs until the user interrupts it: the turn stays in progress. */
  hang?: boolean;
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

const DOWN = { diagnostics: 'tui_down', readiness: 'failed' } as const;
const GONE = { diagnostics: 'unavailable', readiness: 'failed' } as const;
const READY = { diagnostics: 'available', readiness: 'ready' } as const;

export const EXPECTATIONS: Record<string, ToolExpectations> = {
  claude_code: {
    inputBox: /^❯\s*$/m,
    // Claude Code 2.1.330 buffers the reply: the spinner line ("Whisking… ↓ 15 tokens") stays
    // frozen after the stream ended and the whole reply is drawn at once. Measured from the
    // server's end to the first finished frame: 0.10-1.24 s (1.24 s in cli-exit, 0.80 s in
    // cli-killed, 0.64 s in permission-prompt), i.e. up to 0.99 s beyond the 0.25 s poll.
    renderAllowanceSeconds: 1.0,
    scenarios: {
      startup: { turns: [], final: READY },
      'trust-prompt': { turns: [], final: READY, dialog: 'Yes, I trust this folder' },
      'normal-turn': { turns: ['success'], final: READY },
      'long-turn-pause': { turns: ['success'], final: READY },
      'two-turns': { turns: ['success', 'success'], final: READY },
      interrupted: { turns: ['interrupted'], final: READY },
      'error-500': { turns: ['known_failure'], final: READY },
      'error-529-overloaded': { turns: ['known_failure'], final: READY },
      'error-429-rate-limit': { turns: ['known_failure'], final: READY },
      'permission-prompt': {
        turns: ['success'],
        final: READY,
        dialog: 'Do you want to proceed?',
      },
      hang: { turns: ['interrupted'], final: READY, hang: true },
      'cli-exit': { turns: ['success'], final: DOWN },
      'cli-killed': { turns: ['success'], final: DOWN },
      'session-killed': { turns: ['success'], final: GONE },
    },
  },
  codex: {
    inputBox: /^› /m,
    // Codex 0.169.0 draws the reply as it streams and the "Worked for Ns" line right after.
    // Measured: 0.05-0.37 s from the server's end to the first finished frame (0.37 s in
    // cli-exit), i.e. up to 0.12 s beyond the 0.25 s poll.
    renderAllowanceSeconds: 0.15,
    scenarios: {
      startup: { turns: [], final: READY },
      'normal-turn': { turns: ['success'], final: READY },
      'long-turn-pause': { turns: ['success'], final: READY },
      'two-turns': { turns: ['success', 'success'], final: READY },
      interrupted: { turns: ['interrupted'], final: READY },
      'error-500': { turns: ['known_failure'], final: READY },
      'error-529-overloaded': { turns: ['known_failure'], final: READY },
      'error-429-rate-limit': { turns: ['known_failure'], final: READY },
      'permission-prompt': {
        turns: ['success'],
        final: READY,
        dialog: 'Would you like to run the following command?',
      },
      hang: { turns: ['interrupted'], final: READY, hang: true },
      'cli-exit': { turns: ['success'], final: DOWN },
      'cli-killed': { turns: ['success'], final: DOWN },
      'session-killed': { turns: ['success'], final: GONE },
    },
  },
  gemini_cli: {
    inputBox: /^ > +Type your message/m,
    // Gemini CLI 0.61.0 streams the reply and removes the spinner within a few frames.
    // Measured: 0.12-0.54 s from the server's end to the first finished frame (0.54 s in
    // cli-killed), i.e. up to 0.29 s beyond the 0.25 s poll.
    renderAllowanceSeconds: 0.3,
    scenarios: {
      startup: { turns: [], final: READY },
      'normal-turn': { turns: ['success'], final: READY },
      'long-turn-pause': { turns: ['success'], final: READY },
      'two-turns': { turns: ['success', 'success'], final: READY },
      interrupted: { turns: ['interrupted'], final: READY },
      // After a failed request Gemini asks "Keep trying / Stop"; the turn waits on the operator.
      'error-500': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
      'error-529-overloaded': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
      'error-429-rate-limit': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
      'permission-prompt': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
      hang: { turns: ['interrupted'], final: READY, hang: true },
      // The one input is `/quit`: no model request, so never an outcome.
      'cli-exit': { turns: ['none'], final: DOWN },
      'cli-killed': { turns: ['success'], final: DOWN },
      // Recorded without a prompt: the tmux session is killed while the CLI idles.
      'session-killed': { turns: [], final: GONE },
    },
  },
};
