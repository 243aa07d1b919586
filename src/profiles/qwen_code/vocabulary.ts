import type { FailureKind } from '../../schemas/signals.js';
import { PROVIDER_MESSAGES } from '../internal/failure.js';

/** U+FE0E, the text-presentation selector 0.24 draws after its marker glyphs (`●︎`, `◆︎`). */
const TEXT_STYLE = '\uFE0E?';

/**
 * Qwen Code's screen vocabulary (a Gemini CLI fork with its own prompt box). Every marker was
 * seen in the recordings under `test/fixtures/qwen_code/` (the scenario named beside it).
 */
export interface QwenCodeVocabulary {
  /** The rules above and below the prompt box (startup). */
  rule: RegExp;
  /** The box's line: `>   Type your message or @path/to/file`, or `> ` and the draft (startup). */
  promptGlyph: string;
  placeholder: string;
  /** Under the box when idle: `? for shortcuts` (startup). */
  idleHint: RegExp;
  /** Under the box while the CLI still starts: `⠋ Initializing...` (startup-dialogs). */
  initializing: RegExp;
  /**
   * Printed on the bare terminal before the interface is drawn, while the CLI starts: 0.24.4's
   * package ships its ripgrep without the executable bit (0.24.4/startup). Null where none is.
   */
  startupNotice: RegExp | null;
  /**
   * The last line 0.24 prints on its way out, under its session summary: `To continue this
   * session, run qwen --resume <id>` (0.24.4/cli-exit). Null where none was seen.
   */
  exitNote: RegExp | null;
  /** The header box naming the version (startup). */
  header: RegExp;
  /** A prompt echo: `  > say hello` (normal-turn). */
  echo: RegExp;
  /** A reply: `  ✦ Hello! …` (normal-turn). */
  reply: RegExp;
  /**
   * Above the box while a turn runs: `  ⠹ Confuzzling the options... (0s · ↓ 1 tokens · esc to
   * cancel)` (normal-turn); in a narrow pane it wraps, its glyph against the text
   * (size-80x24-normal-turn).
   */
  spinner: RegExp;
  spinnerHint: RegExp;
  /** `  ● Request cancelled.` (interrupted). */
  cancelled: RegExp;
  /** `  ✕ [API Error: 500 …] (Press Ctrl+Y to retry)` (error-500). */
  apiError: RegExp;
  /**
   * Under the box while a turn runs (0.24): `Enter to steer · Ctrl+Q to queue · ⏸ Ask
   * permissions …`, and `⏳ 1 queued` while a prompt waits for the turn to start
   * (0.24.4/normal-turn). Null where the CLI draws neither.
   */
  busyFooter: RegExp | null;
  /**
   * 0.24 shows a follow-up suggestion (what the user might type next, asked of the model after
   * a turn; `ui.enableFollowupSuggestions`, on by default) in the placeholder's place: `> ` and
   * the suggestion, the cursor on its first letter. A typed draft ends with the cursor drawn
   * after it, a space and U+200B (every draft in the recordings of 0.15.10 and 0.24.4). When
   * true, box text without that ending is the suggestion, not a draft. A draft whose cursor was
   * moved back reads as a suggestion too: nothing ready or finished is read from it.
   */
  suggestionInBox: boolean;
  /** Dialogs drawn in the box's place (permission-approved, startup-dialogs). */
  permission: RegExp;
  trust: RegExp;
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
  /**
   * Error messages of the latest turn that say the chat's context is in trouble, tested on the
   * whole message (`apiError`'s group joined with the lines indented under it, by one space):
   * the reason in Qwen Code's terms, first match wins.
   */
  contextTrouble: ReadonlyArray<{ type: string; re: RegExp }>;
  /**
   * The screen-reader view (`--screen-reader`, `ui.accessibility.screenReader`): plain lines at
   * column 0, one rule over the prompt line, words for glyphs
   * (screen-reader-slow-turn-then-permission, screen-reader-two-turns, -interrupted,
   * -error-500, -hang).
   */
  screenReader: {
    /** The prompt line, the last line of the view: `>    Type your message…` or `>  draft`. */
    prompt: RegExp;
    /**
     * The footer: `? for shortcuts`, then the context used once a turn ran; 0.24 draws `➜
     * <folder> · <model>` and, under it, the approval mode (0.24.4/screen-reader-two-turns).
     */
    footer: RegExp;
    /**
     * 0.24, under the footer while a turn runs or a prompt waits in the queue: `Enter to steer ·
     * Ctrl+Q to queue · ⏸ …`, `… ⏳ 1 queued` (0.24.4/screen-reader-slow-turn-then-permission).
     * Null where none is drawn.
     */
    busy: RegExp | null;
    /** ` Initializing...` over the rule while the CLI starts (the spinner glyph left out). */
    initializing: RegExp;
    /** `User:  say hello`. */
    echo: RegExp;
    /** `Model:  Hello!` (the `✦` of the normal view). */
    reply: RegExp;
    /** The word where the spinner stands: `responding`, or `loading` while a tool waits. */
    working: RegExp;
    /** `● Request cancelled.` and `✕ [API Error: …` at column 0. */
    cancelled: RegExp;
    apiError: RegExp;
  };
}

/** Qwen Code 0.15.10. */
export const QWEN_CODE_0_15: QwenCodeVocabulary = {
  rule: /^─{20,}$/,
  promptGlyph: '>',
  placeholder: 'Type your message or @path/to/file',
  idleHint: /^ {2}\? for shortcuts\b/,
  initializing: /^ {2}[\u2800-\u28ff] Initializing\.\.\.$/,
  startupNotice: null,
  exitNote: null,
  header: /│ >_ Qwen Code \(v\d+\.\d+\.\d+\)/,
  echo: /^ {2}> \S/,
  reply: /^ {2}✦ \S/,
  spinner: /^ {2}[\u2800-\u28ff] ?\S/,
  spinnerHint: /\besc to\s+cancel\)$/,
  busyFooter: null,
  suggestionInBox: false,
  cancelled: /^ {2}● Request cancelled\.$/,
  apiError: /^ {2}✕ \[API Error: (.*)$/,
  permission: /Allow execution of: .*\?|Waiting for user confirmation\.\.\./,
  trust: /Do you trust (?:this|the files in this) folder\?/,
  failures: PROVIDER_MESSAGES,
  // No recording of 0.15 near a full window: nothing is read as the context's trouble.
  contextTrouble: [],
  screenReader: {
    prompt: /^>(?: +(.*))?$/,
    footer: /^\? for shortcuts\b/,
    busy: null,
    initializing: /^\s*(?:\S\s+)?Initializing\.\.\.$/,
    echo: /^User: /,
    reply: /^Model: /,
    working: /^(?:responding|loading)\b/,
    cancelled: /^● Request cancelled\.$/,
    apiError: /^✕ \[API Error: (.*)$/,
  },
};

/**
 * Qwen Code 0.24.4 (recorded in `test/fixtures/qwen_code/0.24.4/`). The prompt box, the echo,
 * the spinner line and the dialogs are drawn as in 0.15; what changed:
 * - the reply's glyph is `◆︎` (U+25C6 and the text-presentation selector U+FE0E), no longer
 *   `✦` (0.24.4/normal-turn); the notes carry the selector too: `●︎ Request cancelled.`
 *   (0.24.4/interrupted); `✕ [API Error: …` is drawn as before (0.24.4/error-500);
 * - under the box, `➜ <folder> · <model>` and the approval mode `⏸ Ask permissions (shift + tab
 *   to cycle)` instead of `? for shortcuts` (0.24.4/normal-turn);
 * - while a turn runs that line starts `Enter to steer · Ctrl+Q to queue · `, already before the
 *   spinner line is drawn, and a prompt sent while the CLI is still busy shows above the box
 *   with `⏳ 1 queued` under it (0.24.4/normal-turn, 0.24.4/permission-approved);
 * - while it starts, `⠋ Initializing...` stands alone, with no box drawn yet (0.24.4/normal-turn);
 * - an interrupted prompt is put back into the box as a draft (0.24.4/interrupted);
 * - after a turn the box may show a follow-up suggestion (`suggestionInBox`).
 * The 0.15 glyphs are still accepted: the versions in between (0.16 to 0.23) were not recorded
 * and are read with this edition, which knows both.
 */
export const QWEN_CODE_0_24: QwenCodeVocabulary = {
  ...QWEN_CODE_0_15,
  idleHint: /^ {2}(?:\? for shortcuts\b|⏸ .*\(shift \+ tab to cycle\))/,
  startupNotice: /^Ripgrep not available: /,
  exitNote: /^\s*(?:To continue this session, run )?qwen --resume [\w-]+$/,
  reply: new RegExp(`^ {2}[✦◆]${TEXT_STYLE} \\S`),
  busyFooter: /^ {2}(?:.* )?(?:Enter to steer\b|⏳ \d+ queued\b)/,
  suggestionInBox: true,
  cancelled: new RegExp(`^ {2}●${TEXT_STYLE} Request cancelled\\.$`),
  contextTrouble: [
    // 0.24.4/context-hard-limit: over the hard limit the CLI compacts before sending, and when
    // its own count is still over that limit it keeps the prompt: `✕ [API Error: Context is too
    // large to send safely after automatic compression. Estimated prompt tokens: 179831; hard
    // limit: 177000; compression status: COMPRESSED. Start a new session or …]`.
    {
      type: 'qwen_context_too_large_after_compression',
      re: /^Context is too large to send safely after automatic compression\b/,
    },
    // 0.24.4/context-length-exceeded: the provider refuses the prompt as over the model's window
    // and compacting did not help (or there was nothing to compact): `✕ [API Error: 400 This
    // model's maximum context length is 131072 tokens. However, your messages resulted in …]`.
    // The other wordings are those Qwen Code itself takes for that refusal.
    {
      type: 'qwen_context_length_exceeded',
      re: /\bmaximum context length\b|\bcontext[_\s-]?length[_\s-]?exceeded\b|\bprompt (?:is )?too long\b|\binput (?:token )?(?:count |length )?(?:is )?too long\b|\btoo many tokens\b/i,
    },
  ],
  screenReader: {
    ...QWEN_CODE_0_15.screenReader,
    footer: /^(?:\? for shortcuts\b|➜ \S.* · )/,
    busy: /^(?:.* )?(?:Enter to steer\b|⏳ \d+ queued\b)/,
    cancelled: new RegExp(`^●${TEXT_STYLE} Request cancelled\\.$`),
  },
};
