import type { FailureKind } from '../../schemas/signals.js';

/**
 * Claude Code's screen vocabulary. Every marker below was seen in the recordings under
 * `test/fixtures/claude_code/` (the scenario named beside it).
 */
export interface ClaudeCodeVocabulary {
  /** A full-width rule: the prompt box sits between two of them (every scenario). */
  rule: RegExp;
  /** The prompt glyph opening the box's first line, and each prompt echo in the transcript. */
  promptGlyph: string;
  /** `✻ Gusting… (3s · ↓ 10 tokens)`: the live status line (normal-turn, long-turn-pause). */
  statusLine: RegExp;
  /**
   * A line in the status line's place shaped like one, with a glyph no release drew there (a
   * new spinner set, or a word where the glyph stands, as screen readers get from other CLIs): a
   * glyph that is no letter, digit or mark of the transcript (`●` reply, `❯` echo, `⎿` detail)
   * or a lower-case word, at the line's start, then a space, words and an ellipsis. Read as activity: a new release's
   * working line must never read as the idle prompt.
   */
  unknownStatusLine: RegExp;
  /** `✻ 529 Overloaded · retrying in 1s · attempt 2/2` (error-529-overloaded). */
  retryLine: RegExp;
  /** `✻ Crunched for 2s · done 8:33 AM`: the finished-turn summary (normal-turn). */
  doneLine: RegExp;
  /** The footer while a turn runs (normal-turn). */
  interruptHint: RegExp;
  /** The footer of the idle prompt (startup). */
  idleHint: RegExp;
  /** `⎿ Tip: …` under the status line, and the effort hint (normal-turn). */
  tipLine: RegExp;
  effortLine: RegExp;
  /**
   * A note drawn at the right edge just over the prompt box: `auto-compact next` as the context
   * fills (context-near-full), `ctrl+g to edit in Vim`. The status line and the turn's last line
   * are above it.
   */
  edgeNote: RegExp;
  /** The logo header at the top until the transcript scrolls it away (startup). */
  logoHeader: RegExp;
  /**
   * The interrupt notice (`⎿`, a space and a no-break space), only as the latest turn's last
   * line: a reply may quote it anywhere (interrupted).
   */
  interrupted: RegExp;
  /** `● API Error: 500 …` (error-500, error-429-rate-limit, error-529-overloaded). */
  apiError: RegExp;
  /** A reply line (normal-turn). */
  replyLine: RegExp;
  /** Dim hints in an empty prompt box, whole: a draft may start the same way (error-then-success). */
  placeholders: readonly RegExp[];
  /**
   * `Do you want to proceed?` and its numbered options, the cursor on any of them
   * (permission-prompt; the cursor leaves `1.` when a digit arrives too early, or the user moves it).
   */
  permission: RegExp;
  dialogOption: RegExp;
  /** The folder trust dialog (trust-prompt). */
  trust: RegExp;
  /** The auto-mode question of a new user (startup-auto-mode-dialog). */
  autoModeDialog: RegExp;
  /** The highlighted option of a dialog (the trust dialog's options carry no numbers). */
  selectedOption: RegExp;
  /** One entry of the slash-command menu over the prompt. */
  slashMenuItem: RegExp;
  /** What the CLI prints on its way out, left above the shell prompt (cli-exit). */
  exitNote: RegExp;
  /** Failure kinds by the error text, first match wins (else by HTTP status). */
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
}

/** Spinner glyphs Claude Code cycles through in its status line. */
const SPINNER = '·✢✳✶✻✽*';

/** Claude Code 2.1.330. */
export const CLAUDE_CODE_2_1: ClaudeCodeVocabulary = {
  rule: /^─{20,}$/,
  promptGlyph: '❯',
  statusLine: new RegExp(`^[${SPINNER}] \\S.*…`),
  unknownStatusLine: /^(?![●❯⎿])(?:[^\p{L}\p{N}\s]|\p{Ll}+) \p{L}.*…/u,
  retryLine: /retrying in \d+\s*\w* · attempt \d+\/\d+/,
  doneLine: new RegExp(`^[${SPINNER}] \\S+ for \\d.*`),
  interruptHint: /esc to interrupt/,
  idleHint: /\? for shortcuts/,
  tipLine: /^\s*⎿\s+Tip:/,
  effortLine: /^\s+\S+ \w+ · \/effort$/,
  edgeNote: /^ {40,}\S/,
  logoHeader: /Claude Code v\d/,
  interrupted: /^ {2}⎿ \u00a0Interrupted · What should Claude do instead\?$/,
  apiError: /^● API Error: (.*)$/,
  replyLine: /^● /,
  placeholders: [/^Resend your message to try again$/, /^Try "[^"]+"$/],
  permission: /^\s*Do you want to (proceed|make this edit|create|allow|run)\b.*\?$/,
  dialogOption: /^\s*❯ \d+\. /,
  trust: /(Yes, I trust this folder|Is this a project you created or one you trust)/,
  autoModeDialog: /Make auto mode your default permission mode\?/,
  selectedOption: /^\s*❯ \S/,
  slashMenuItem: /^\s+❯? ?\/[a-z][\w-]*\s{2,}\S/,
  exitNote: /^(Resume this session with:|Claude Code didn't start\b)/,
  failures: [
    { kind: 'overloaded', re: /\b529\b|Overloaded/i },
    { kind: 'rate_limited', re: /\b429\b|rate limit/i },
  ],
};
