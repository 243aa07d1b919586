import type { FailureKind } from '../../schemas/signals.js';
import { PROVIDER_MESSAGES } from '../internal/failure.js';

/**
 * Cline CLI's screen vocabulary. Every marker was seen in the recordings under
 * `test/fixtures/cline/` (the scenario named beside it).
 */
export interface ClineVocabulary {
  /** The rules above and below the prompt box; centred on the start screen (startup). */
  rule: RegExp;
  promptGlyph: string;
  /** Placeholders of the empty box: `What can I do for you?`, then `Ask anything...` (startup, normal-turn). */
  placeholders: readonly string[];
  /**
   * The hint Cline draws above the box under the placeholder: `Use / for slash commands, @ for
   * file mentions, Ctrl+P for menu` (permission-approved).
   */
  boxHint: RegExp;
  /** A prompt echo: ` ❯ say hello` (normal-turn). */
  echo: RegExp;
  /**
   * A row of the logo drawn above the welcome line before the first turn, which Cline redraws
   * as the prompt is typed (enter-in-paste): its glyphs and spaces alone.
   */
  logoRow: RegExp;
  /**
   * An item still streaming, its glyph a spinner (` ⠙ Hello! This`), and the wait before the
   * first token (` ⠋ Thinking... (esc to cancel)`) (normal-turn).
   */
  streaming: RegExp;
  escToCancel: RegExp;
  /** A finished item: ` * Hello! …` (normal-turn). An interrupted one looks the same (interrupted). */
  item: RegExp;
  /**
   * ` * Error: … (HTTP 500)` (error-500); a message too long for one row is drawn ` *Error: …`,
   * wrapped onto rows indented by two (3.0.65/context-length-exceeded).
   */
  error: RegExp;
  /**
   * Error messages (joined with the rows they wrap onto) that say the conversation no longer fits
   * the model's window, with the chat context's diagnostic; first match wins.
   */
  contextErrors: ReadonlyArray<{ type: string; re: RegExp }>;
  /** The permission question drawn in the box's place (permission-approved). */
  permission: RegExp;
  permissionKeys: RegExp;
  /** The footer under the box (startup). */
  footer: RegExp;
  /** The promotion drawn over the start screen: `Press Enter to open, any other key to close` (startup). */
  promotion: RegExp;
  /** The session summary on the way out: `Continue  cline --id <id>` (cli-exit). */
  exitNote: RegExp;
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
}

/** Cline CLI 3.0.65. */
export const CLINE_3_0: ClineVocabulary = {
  rule: /^\s*─{20,}$/,
  promptGlyph: '❯',
  placeholders: ['What can I do for you?', 'Ask anything...'],
  boxHint: /^\s*Use \/ for slash commands, @ for file mentions\b/,
  echo: /^ ❯ \S/,
  logoRow: /^ *[#*+.:;@][ #*+.:;@]*$/,
  streaming: /^ [\u2800-\u28ff] \S/,
  escToCancel: /\(esc to cancel\)$/,
  item: /^ \*(?: \S|Error: )/,
  error: /^ \* ?Error: (.+)$/,
  permission: /^ Approve tool call\?$/,
  permissionKeys: /^ {2}\[y\] Approve {3}\[n\] Deny$/,
  footer: /^\s*Auto-approve all (?:disabled|enabled)\b/,
  promotion: /Press Enter to open, any other key to close/,
  exitNote: /^\s*Continue\s+cline --id \S+$/,
  // The provider's message as it came (error-500: `The server had an error …`).
  failures: PROVIDER_MESSAGES,
  // Cline's own messages when the provider says the window is exceeded (its agents package),
  // each followed by `(provider reported: <the provider's message>)`; it first draws
  // `* context window exceeded — compacting and retrying` and compacts, and these end the turn
  // when that did not help (3.0.65/context-length-exceeded: the first one).
  contextErrors: [
    {
      type: 'cline_context_window_exceeded_nothing_to_compact',
      re: /exceeds the model's context window and there is no conversation history to compact/,
    },
    {
      type: 'cline_context_window_exceeded_after_compaction',
      re: /still exceeds the model's context window after compacting it/,
    },
    {
      type: 'cline_context_window_exceeded',
      re: /exceeds the model's context window|maximum context length|context_length_exceeded/i,
    },
  ],
};
