import type { FailureKind } from '../../schemas/signals.js';

/**
 * Gemini CLI's screen vocabulary. Anchors are meant: lines are tested as drawn (right-trimmed
 * only), so `^` is column 0 and an indented reply line quoting one of these strings does not
 * match. Every marker below was seen in the recordings under `test/fixtures/gemini_cli/` (the
 * scenario named beside it).
 */
export interface GeminiCliVocabulary {
  /** The prompt box's bars (`▄▄▄…` above, `▀▀▀…` below) and the rule over the status area (startup). */
  topBar: RegExp;
  bottomBar: RegExp;
  rule: RegExp;
  /** The footer under the prompt box (startup). */
  footer: RegExp;
  /** The line above the rule: the spinner with "esc to cancel", or the idle shortcuts hint (normal-turn). */
  statusLine: RegExp;
  /** The empty prompt box's placeholder (startup). */
  placeholder: string;
  /** ` ⠹ Thinking... (esc to cancel, 3s)` (normal-turn, long-turn-pause). */
  active: RegExp;
  /** A prompt sent while the CLI initialises or works waits above the status line (multiline-prompt). */
  queued: RegExp;
  queuedPrompt: RegExp;
  /** Printed when a prompt is sent during start-up; while it is the newest line, that prompt is on its way. */
  initializing: RegExp;
  /** `ℹ Request cancelled.` (interrupted). */
  interrupted: RegExp;
  /** `✕ [API Error: …` (error-500, error-429-rate-limit). */
  apiError: RegExp;
  /** `✦ ` opens a reply (normal-turn). */
  reply: RegExp;
  /**
   * `/compress`'s result, drawn with the reply's glyph (`✦ Chat history compressed from 1048570
   * to 171 tokens.`, context-window-overflow-then-compress): no reply of the model.
   */
  compressionNote: RegExp;
  /** The banner with the version (startup). */
  banner: RegExp;
  /** Permission dialogs (permission-prompt, edit-approval). */
  permission: RegExp;
  /** The "Keep trying / Stop" dialog after failed attempts (error-500, error-529-overloaded). */
  quotaDialog: RegExp;
  /** The folder trust dialog (startup-trust-dialog). */
  trust: RegExp;
  /** The authentication picker, the wait for it, then the API key box (startup-auth-dialog). */
  auth: RegExp;
  /** The goodbye box after `/quit` (cli-exit). */
  goodbye: RegExp;
  /**
   * A slash-command suggestion listed under a box holding `/…`. No recording shows one yet: it
   * keeps a half-typed command from reading as a draft prompt.
   */
  slashSuggestion: RegExp;
  /** The idle hint, kept out of the projection (as is the spinner line). */
  idleHint: RegExp;
  /** Failure kinds by the error text, first match wins (else by HTTP status). */
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
  /** A notice's first line: its glyph at column 0 and a space (`ℹ Request cancelled.`). */
  notice: RegExp;
  /**
   * Notices of the latest turn that say the chat's context is in trouble, tested on the whole
   * notice (its first line joined with the lines indented under it, by one space): the reason in
   * Gemini CLI's terms, first match wins.
   */
  contextTrouble: ReadonlyArray<{ type: string; re: RegExp }>;
  /**
   * The screen-reader view (`ui.accessibility.screenReader`, `--screen-reader`): no box bars,
   * the glyphs replaced by words (screen-reader-slow-turn).
   */
  screenReader: {
    /** The prompt line, the last line of the view: `>    Type your message…` or `>  draft`. */
    prompt: RegExp;
    /** A prompt echo: `User:  say hello`. */
    echo: RegExp;
    /** A reply: `Model:  Hello!` (the `✦ ` of the normal view). */
    reply: RegExp;
    /** The first-run note above the footer (`You are currently in screen reader-friendly view…`). */
    nudge: RegExp;
    /** The word drawn where the spinner stands: `responding`, or `loading` while a tool waits. */
    working: RegExp;
    /** `ℹ  Request cancelled.` and `✕  [API Error: …`: two spaces after the glyph in this view. */
    interrupted: RegExp;
    apiError: RegExp;
    /**
     * The "Keep trying / Stop" dialog under the footer, its options as plain lines
     * (`(checked) 1. Keep trying`) (screen-reader-error-then-success).
     */
    quotaDialog: RegExp;
  };
}

/** Gemini CLI 0.61.0. */
export const GEMINI_CLI_0_61: GeminiCliVocabulary = {
  topBar: /^▄{10,}$/,
  bottomBar: /^▀{10,}$/,
  rule: /^─{10,}$/,
  footer: /^\s*workspace \(\/directory\)/,
  statusLine: /\(esc to cancel|\? for shortcuts\s*$/,
  placeholder: 'Type your message or @path/to/file',
  active: /^ [\u2800-\u28ff] \S.*\(esc to cancel, [^)]+\)/,
  queued: /^ {2}Queued \(press ↑ to edit\):$/,
  queuedPrompt: /^ {4}\S/,
  initializing: /^ℹ Initializing\.\.\. Prompts will be queued\.$/,
  interrupted: /^ℹ Request cancelled\./,
  apiError: /^✕ \[API Error: (.*)/,
  reply: /^✦ /,
  // The texts /compress prints (its other results were not recorded; the CLI's own strings).
  compressionNote:
    /^✦ (?:Chat history compressed from \d+ to \d+ tokens\.|Compression was not beneficial for this history size\.|Chat history compression did not reduce size\.|Could not compress chat history due to a token counting error\.|Chat history compression failed: the model returned an empty summary\.|Nothing to compress\.)/,
  banner: /Gemini CLI v\d/,
  permission: /Allow execution of|Apply this change\?|Allow once/,
  // The options inside the dialog's frame (`│ ● 1. Keep trying │`): the same words in the
  // transcript, or a reply quoting them, are not the dialog.
  quotaDialog: /^│ (?:● | {2})\d\. Keep trying\s*│$/,
  trust: /Do you trust (this|the files in this) folder/,
  auth: /How would you like to authenticate|Enter Gemini API Key|Existing API key detected|Waiting for authentication\.\.\./,
  goodbye: /Agent powering down\. Goodbye!/,
  slashSuggestion: /^\s{1,2}\/?[a-z][\w-]*\s{2,}\S/,
  idleHint: /^\s*\? for shortcuts$/,
  // 429 and 503 show as the bare API message (`Resource has been exhausted …`, `The model is overloaded …`).
  screenReader: {
    prompt: /^>(?: +(.*))?$/,
    echo: /^User: /,
    reply: /^Model: /,
    nudge: /^You are currently in screen reader-friendly view\./,
    working: /^(?:responding|loading)\b/,
    interrupted: /^ℹ {1,2}Request cancelled\./,
    apiError: /^✕ {1,2}\[API Error: (.*)/,
    quotaDialog: /^(?:\(checked\) )?1\. Keep trying$/,
  },
  notice: /^[ℹ✕] \S/,
  contextTrouble: [
    // context-window-overflow: the window has fewer tokens left than the prompt needs (the
    // compression before it did not free any), so the prompt is not sent and goes back to the
    // box: `ℹ Sending this message (13 tokens) might exceed the context window limit (6 tokens
    // left). Please try reducing …`.
    {
      type: 'gemini_context_window_will_overflow',
      re: /^ℹ Sending this message \([^)]*\) might exceed the context window limit \(/,
    },
    // compress-context-length-exceeded: `/compress` failed, its summary request itself over the
    // window: `✕ Failed to compress chat history: Failed to generate content: {"error":{"code":400,
    // "message":"The input token count (1048696) exceeds the maximum number of tokens allowed …`.
    {
      type: 'gemini_compress_input_token_count_exceeded',
      re: /^✕ Failed to compress chat history\b.*\binput token count \(\d+\) exceeds the maximum number of tokens allowed\b/,
    },
    // `/compress` failed for another reason (its request's error, or no result at all).
    { type: 'gemini_compress_failed', re: /^✕ Failed to compress chat history\b/ },
    // context-length-exceeded: the prompt itself is over the window, the API's 400 as the error
    // line: `✕ [API Error: {"error":{"code":400,"message":"The input token count (1200000)
    // exceeds the maximum number of tokens allowed (1048576).",…`.
    {
      type: 'gemini_input_token_count_exceeded',
      re: /^✕ \[API Error: .*\binput token count \(\d+\) exceeds the maximum number of tokens allowed\b/,
    },
  ],
  failures: [
    {
      kind: 'rate_limited',
      re: /"code":\s*429|RESOURCE_EXHAUSTED|Resource has been exhausted|quota|rate limit/i,
    },
    { kind: 'overloaded', re: /"code":\s*503|"UNAVAILABLE"|overloaded/i },
  ],
};
