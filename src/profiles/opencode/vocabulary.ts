import type { FailureKind } from '../../schemas/signals.js';
import { PROVIDER_MESSAGES } from '../internal/failure.js';
import type { HighlightStyles } from '../internal/highlight.js';

/**
 * The screen vocabulary of opencode and of its fork Kilo (one layout, other words). Every
 * marker was seen in the recordings under `test/fixtures/opencode/` and `test/fixtures/kilo/`
 * (the scenario named beside it).
 */
export interface OpencodeVocabulary {
  /** The prompt box's bottom bar, `╹▀▀▀…` (every scenario). */
  boxBottom: RegExp;
  /** A line of the prompt box or of a block in the transcript (user prompt, tool, error): `┃`. */
  blockLine: RegExp;
  /** The empty box's placeholder (startup: `Ask anything… "Fix a TODO in the codebase"`). */
  placeholder: RegExp;
  /** The box's last line names the agent and model: `┃  Build · fake-model Fake` (startup). */
  agentLine: RegExp;
  /**
   * Under the box while a turn runs: the moving block bar, then `esc interrupt`, or after one
   * Escape `esc again to interrupt` (normal-turn, interrupted).
   */
  workingBar: RegExp;
  interruptHint: RegExp;
  /** `… [retrying in 4s attempt #3]` under the box while a failed request waits (error-500). */
  retrying: RegExp;
  /** Under the box when idle: `ctrl+p commands` (startup). */
  idleHint: RegExp;
  /**
   * The assistant message's footer: `▣  Build · fake-model` while it runs; with the duration
   * when it finished (`· 8.4s`, `· 957ms`: normal-turn, two-turns); `· interrupted`
   * (interrupted).
   */
  messageFooter: RegExp;
  finishedSuffix: RegExp;
  interruptedSuffix: RegExp;
  /**
   * The footer of the compaction's own message: `▣  Compaction · fake-model`, with the duration
   * when it worked (context-near-full: `· 462ms`), bare under an error block when it failed
   * (compact-context-length-exceeded).
   */
  compactionFooter: RegExp;
  /**
   * Why a failed compaction failed, by its error block's text, first match wins; `compactionFailed`
   * when none matches.
   */
  contextErrors: ReadonlyArray<{ type: string; re: RegExp }>;
  compactionFailed: string;
  /**
   * Permission dialogs drawn in place of the box, each by its title and the key line under it
   * (permission-approved; Kilo asks what to do instead after a rejection: permission-denied;
   * both ask to confirm `Allow always`: permission-allow-always).
   */
  permissionDialogs: ReadonlyArray<{ title: RegExp; keys: RegExp }>;
  /**
   * How the permission dialog draws its options, selected and not, with the default theme: the
   * selection is drawn by colour alone (`capture-pane -e` of the live dialog, in
   * `test/fixtures/<tool>/highlight/`). Another theme draws other colours: unknown, never guessed.
   */
  highlight: HighlightStyles;
  /** The start screen's logo rows (startup). */
  logo: RegExp;
  /** Printed under the logo on the way out: `Continue  opencode -s ses_…` (cli-exit). */
  exitNote: RegExp;
  /** Failure kinds by the provider's message, which the CLI shows as it got it. */
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
}

/** opencode 1.18.33. */
export const OPENCODE_1_18: OpencodeVocabulary = {
  boxBottom: /^\s*╹▀{10,}/,
  blockLine: /^\s*┃/,
  placeholder: /^Ask anything… /,
  agentLine: /^\S.* · \S/,
  workingBar: /(?:^|\s)[⬝■]{8}(?:\s|$)/,
  interruptHint: /esc (?:again to )?interrupt/,
  retrying: /\[retrying in \d+\w* attempt #\d+\]/,
  idleHint: /ctrl\+p commands/,
  messageFooter: /^ {3,}▣ {2}\S+ · /,
  finishedSuffix: / · (?:\d+h )?(?:\d+m )?\d+(?:\.\d+)?m?s$/,
  interruptedSuffix: / · interrupted$/,
  compactionFooter: /^ {3,}▣ {2}Compaction · /,
  contextErrors: [
    // The compaction's request did not fit either: `Conversation history too large to compact -
    // exceeds model context limit`, or on a first prompt `Session too large to compact - context
    // exceeds model limit even after stripping media`.
    { type: 'opencode_too_large_to_compact', re: /\btoo large to compact\b/ },
  ],
  compactionFailed: 'opencode_compaction_failed',
  permissionDialogs: [
    { title: /^\s*┃\s+△ Permission required$/, keys: /Allow once\s+Allow always\s+Reject/ },
    // permission-allow-always: `Allow always` asks to confirm, `△ Always allow`, `Confirm   Cancel`.
    { title: /^\s*┃\s+△ Always allow$/, keys: /^\s*┃\s+Confirm {3}Cancel(?:\s|$)/ },
  ],
  // Near-black on orange; the others grey on the dialog's dark grey.
  highlight: {
    selected: ['fg=38;2;10;10;10 bg=48;2;245;167;66'],
    unselected: ['fg=38;2;128;128;128 bg=48;2;30;30;30'],
  },
  logo: /█▀▀█ █▀▀█ █▀▀█ █▀▀▄/,
  exitNote: /^\s*Continue\s+opencode -s ses_\w+/,
  failures: PROVIDER_MESSAGES,
};
