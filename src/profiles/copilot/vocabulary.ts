import type { FailureKind } from '../../schemas/signals.js';

/**
 * GitHub Copilot CLI's screen vocabulary. Every marker was seen in the recordings under
 * `test/fixtures/copilot/` (the scenario named beside it).
 */
export interface CopilotVocabulary {
  /** The rules above and below the prompt box (startup). */
  rule: RegExp;
  /** The box's first line starts with the prompt glyph (startup: a bare `❯`). */
  promptGlyph: string;
  /** A prompt echo in the transcript: ` ❯ say hello      08:15` (normal-turn). */
  echo: RegExp;
  /** The row under the box while a turn runs: `◉ Working · 44 B esc esc interrupt` (normal-turn). */
  working: RegExp;
  /** The row under the box when idle: `← open sidebar · Interactive · Manual Approval · …` (startup). */
  idleHint: RegExp;
  /** `● Request failed due to a transient API error. Retrying...` (error-500). */
  retrying: RegExp;
  /** A message of the agent: `● Hello! …` (normal-turn). */
  message: RegExp;
  /** `● Operation cancelled by user` (interrupted, permission-denied). */
  cancelled: RegExp;
  /**
   * `✗ Failed to get response from the AI model; retried 5 times … Last error: 500 …`
   * (error-500), or `✗ 400 Invalid request.` for an error not retried (error-400). A tool that
   * failed is drawn `✗ Shell …` (permission-denied): not a failure of the turn.
   */
  failed: RegExp;
  /** Dialogs drawn in a frame in the box's place (permission-approved, startup-dialogs). */
  permission: RegExp;
  trust: RegExp;
  /** The header at the top until the transcript scrolls it away (startup). */
  header: RegExp;
  /** The tab row drawn first at start-up: `[Current]  Sessions   Issues   …` (startup). */
  tabs: RegExp;
  /** Rows of the header's logo, whose eyes blink (`█ ▘▝ █`, `█ ╴╶ █`): not transcript (startup). */
  logo: RegExp;
  /** The summary printed on the way out: `Resume     copilot --resume=<id>` (cli-exit). */
  exitNote: RegExp;
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
  /**
   * Failure messages (a `✗` line joined with the lines it wraps onto) that say the conversation
   * no longer fits the model's window, with the chat context's diagnostic; first match wins.
   */
  contextErrors: ReadonlyArray<{ type: string; re: RegExp }>;
}

/** Copilot CLI 1.0.102. */
export const COPILOT_1_0: CopilotVocabulary = {
  rule: /^─{20,}$/,
  promptGlyph: '❯',
  echo: /^ ❯ \S/,
  working: /^ \S Working\b.*\besc esc (?:interrupt|edit prompt)\b/,
  idleHint: / · Interactive · /,
  retrying: /^ ● Request failed due to a transient API error\. Retrying\.\.\.$/,
  message: /^ ● \S/,
  cancelled: /^ ● Operation cancelled by user$/,
  failed: /^ ✗ (Failed to get response from the AI model\b.*|[45]\d\d \S.*)$/,
  permission: /^│ Do you want to (?:run|edit|create|allow|fetch)\b.*\?\s*│$/,
  trust: /^│ Do you trust the files in this folder\?\s*│$/,
  header: /Copilot v\d+\.\d+\.\d+ uses AI\./,
  exitNote: /^.{0,12}Resume {2,}copilot --resume=\S+$/,
  tabs: /^ \[Current\] {2}Sessions {3}Issues\b/,
  logo: /^\s*(?:╭─╮╭─╮|╰─╯╰─╯|█ \S\S █|▔▔▔▔)/,
  failures: [],
  contextErrors: [
    // 1.0.102 context-length-exceeded, context-all-refused: the provider's 400
    // `context_length_exceeded`, printed as is: `✗ 400 This model's maximum context length is
    // 100000 tokens. However, your messages resulted in 131072 tokens. …`.
    {
      type: 'copilot_context_length_exceeded',
      re: /^[45]\d\d .*(?:maximum context length|context_length_exceeded|exceeds the context window)/i,
    },
  ],
};
