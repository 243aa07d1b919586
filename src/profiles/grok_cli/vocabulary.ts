import type { FailureKind } from '../../schemas/signals.js';

/**
 * grok-cli's screen vocabulary. Every marker was seen in the recordings under
 * `test/fixtures/grok_cli/` (the scenario named beside it).
 */
export interface GrokCliVocabulary {
  /** The prompt box: `╭─…─╮`, `│ ❯ Ask me anything... │`, `╰─…─╯` (startup). */
  boxTop: RegExp;
  boxLine: RegExp;
  boxBottom: RegExp;
  /** A row of the box drawn garbled, a carriage return in its draft: it ends at a border (enter-in-paste). */
  boxEdge: RegExp;
  placeholder: string;
  /** Above the box while a turn runs: `/ Interfacing... (0s · ↑ 802 tokens · esc to interrupt)` (normal-turn). */
  working: RegExp;
  /** The row under the box: `⏸ auto-edit: off (shift + tab)  ≋ fake-model` (startup). */
  footer: RegExp;
  /** A prompt echo: `  > say hello` (normal-turn). */
  echo: RegExp;
  /** An item of the agent: `  ⏺ Hello! …`, `  ⏺ Bash` (normal-turn, permission-approved). */
  item: RegExp;
  /** `    [Operation cancelled by user]` under the partial reply (interrupted). */
  cancelled: RegExp;
  /** `  ⏺ Sorry, I encountered an error: Grok API error: 500 …` (error-500). */
  error: RegExp;
  /** The confirmation drawn in the box's place (permission-approved). */
  permission: RegExp;
  permissionKeys: RegExp;
  /** The hint above the box at start-up, and the line printed before the first screen (startup). */
  banner: RegExp;
  starting: RegExp;
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
  /**
   * Error messages (the error item joined with the lines it wraps onto) that say the conversation
   * no longer fits the model's window, with the chat context's diagnostic; first match wins.
   */
  contextErrors: ReadonlyArray<{ type: string; re: RegExp }>;
}

/** grok-cli 0.0.34. */
export const GROK_CLI_0_0: GrokCliVocabulary = {
  boxTop: /^ {2}╭─{20,}╮$/,
  boxLine: /^ {2}│ ❯ ?(.*?)\s*│$/,
  boxBottom: /^ {2}╰─{20,}╯$/,
  boxEdge: /│$/,
  placeholder: 'Ask me anything...',
  working: /^ {2}\S .*\(.*esc to interrupt\)$/,
  footer: /^ {2}⏸ auto-edit: (?:on|off)\b/,
  echo: /^ {2}> \S/,
  item: /^ {2}⏺ \S/,
  cancelled: /^ {4}\[Operation cancelled by user\]$/,
  error: /^ {2}⏺ Sorry, I encountered an error: (.+)$/,
  permission: /^ {2}Do you want to proceed with this operation\?$/,
  permissionKeys: /^ {2}↑↓ navigate • Enter select • Esc cancel$/,
  banner: /^ {2}Type your request in natural language\. Ctrl\+C to clear, 'exit' to quit\.$/,
  starting: /^🤖 Starting Grok CLI Conversational Assistant\.\.\.$/,
  failures: [],
  contextErrors: [
    // context-length-exceeded: the provider's 400 `context_length_exceeded` as is, `⏺ Sorry, I
    // encountered an error: Grok API error: 400 This model's maximum context length is …`.
    {
      type: 'grok_cli_context_length_exceeded',
      re: /^Grok API error: [45]\d\d .*(?:maximum context length|context_length_exceeded|exceeds the context window)/i,
    },
  ],
};
