import type { FailureKind } from '../../schemas/signals.js';

/**
 * Codex CLI's screen vocabulary: the UI strings one version draws. Every marker below was seen
 * in the recordings under `test/fixtures/codex/` (the scenario named beside it).
 */
export interface CodexVocabulary {
  /** Composer placeholders (the empty prompt box). */
  placeholders: readonly string[];
  /** The transcript header's first line. */
  header: RegExp;
  /** Live status line: the first non-blank line above the composer while a turn runs. */
  statusLine: RegExp;
  /** Below the composer while the session is still starting; a submitted prompt waits. */
  waitingForStartup: RegExp;
  /** Footer line naming the model and the working folder: drawn once the session is up. */
  modelFooter: RegExp;
  /** Footer hint of the idle composer. */
  shortcutsHint: RegExp;
  /** The approval dialog for a command: its first line, and its footer (the screen's last line). */
  approvalDialog: { header: RegExp; footer: RegExp };
  /** The start-up question about a folder not yet trusted (asked inside a Git project). */
  trustDialog: readonly RegExp[];
  /** The startup warnings overlay (F2). */
  warningsOverlay: RegExp;
  /** One entry of the slash-command popup. */
  slashPopupEntry: RegExp;
  /** End-of-turn summary: the last line of a finished turn. */
  turnFinished: RegExp;
  /** Outcome lines of a turn that did not finish normally. */
  interrupted: RegExp;
  errorLine: RegExp;
  /** Printed after the TUI quits. */
  exited: readonly RegExp[];
  /** Known failures by the message Codex prints, first match wins. */
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
  /**
   * Error cells that say the chat's context is in trouble: the whole cell (its lines joined with
   * spaces, the message in group 1), and the diagnostic by what the message says, first match
   * wins; `fallback` when none matches.
   */
  contextErrors: ReadonlyArray<{
    cell: RegExp;
    types: ReadonlyArray<{ type: string; re: RegExp }>;
    fallback: string;
  }>;
}

/**
 * The duration after `Worked for`, as Codex 0.169.0's formatter writes it from whole seconds:
 * `<1s` for 0, else `{s}s`, `{m}m {s}s` or `{h}h {m}m {s}s`, unpadded (`1m 0s`, `1h 0m 5s`).
 * Zero-padded numbers (`1m 02s`, as the status line writes them) are taken as well.
 */
const WORKED_FOR = String.raw`(?:<1s|(?:\d+h )?(?:\d+m )?\d+s)`;

/** Codex CLI 0.169.0. */
export const CODEX_0_169: CodexVocabulary = {
  // startup, normal-turn: the empty composer.
  placeholders: ['Ask Codex to do anything'],
  // startup: `>_ OpenAI Codex (v0.169.0)` in the header box.
  header: /^\s*>_ OpenAI Codex \(v[\d.]+/,
  // normal-turn, interrupted: `• Working (3s • esc to interrupt)`.
  statusLine: /^[•◦] .*\((?:\d+h )?(?:\d+m )?\d+s • esc to interrupt\)$/,
  // enter-during-startup: a prompt submitted before the session is up.
  waitingForStartup: /^\s*Waiting for startup\b/,
  // startup: `  gpt-fake-1 · ~/work` under the composer once the session is up.
  modelFooter: /^ {2}\S.* · [~/]/,
  // startup: the idle composer's footer hint.
  shortcutsHint: /\? for shortcuts/,
  // permission-prompt.
  approvalDialog: {
    header: /^ {2}Would you like to run the following command\?$/,
    footer: /^ {2}Press enter to confirm or esc to cancel$/,
  },
  // startup-trust-dialog.
  trustDialog: [/^\s*Trust this folder\?/, /^[› ] 1\. Trust and continue$/],
  // startup-fresh-home: the F2 warnings overlay.
  warningsOverlay: /esc dismiss & close/,
  // cli-exit: the popup over the composer while `/quit` is typed.
  slashPopupEntry: /^[› ] \/[a-z][\w-]*(?: {2,}\S.*)?$/,
  // normal-turn: `  Worked for 2s • 08:36`; the rule-drawn form `─ Worked for 2s ───` is taken as well.
  // quick-turn: `Worked for <1s`; minute-turn: `Worked for 1m 2s` (see WORKED_FOR).
  turnFinished: new RegExp(
    `^(?: {2}Worked for ${WORKED_FOR} • \\S+|─+ Worked for ${WORKED_FOR}(?: ─+)?)$`,
  ),
  // interrupted: `■ Conversation interrupted - tell the model what to do differently.`
  interrupted: /^■ Conversation interrupted\b/,
  // error-500, error-429-rate-limit, error-529-overloaded.
  errorLine: /^■ (.+)$/,
  // cli-exit.
  exited: [/^Disconnected from this task\./, /^\s*codex resume \S+/],
  failures: [
    { kind: 'rate_limited', re: /\b429\b|Too Many Requests|rate limit/i },
    { kind: 'overloaded', re: /at capacity|overloaded/i },
    { kind: 'server_error', re: /experiencing high demand|\b5\d\d\b|Internal Server Error/i },
    { kind: 'connection_failed', re: /stream disconnected|stream error/i },
  ],
  contextErrors: [
    {
      // 0.171.0 compact-*: with the OpenAI provider Codex compacts remotely before a prompt once
      // the usage nears the window; when that request fails the prompt is not sent and the turn
      // shows `■ Error running remote compact task: <why>` (wrapped onto the lines under it).
      cell: /^■ Error running remote compact task: (.*)$/,
      types: [
        // compact-stream-disconnected: `stream disconnected before completion: Transport error: …`
        { type: 'codex_remote_compact_stream_disconnected', re: /stream disconnected/i },
        // compact-context-length-exceeded: `Codex ran out of room in the model's context window. …`
        {
          type: 'codex_remote_compact_context_length_exceeded',
          re: /ran out of room in the model's context window|context_length_exceeded/i,
        },
        // compact-unknown-parameter: the provider's JSON, `"code":"unknown_parameter"`.
        {
          type: 'codex_remote_compact_unknown_parameter',
          re: /unknown_parameter|Unknown parameter/i,
        },
        // compact-error-500: `We’re currently experiencing high demand, which may cause …`.
        {
          type: 'codex_remote_compact_server_error',
          re: /experiencing high demand|server_error|Internal Server Error|\b5\d\d\b/i,
        },
      ],
      fallback: 'unknown',
    },
    {
      // 0.171.0 context-length-exceeded: the prompt itself overflows the window (the provider's
      // 400 `context_length_exceeded`), with no compaction before it.
      cell: /^■ (Codex ran out of room in the model's context window\b.*)$/,
      types: [],
      fallback: 'codex_context_length_exceeded',
    },
  ],
};

const BRAILLE_ART = /^[\s\u2800-\u28ff]+$/;

/** The start-up logo is drawn in braille cells; it is decoration, not transcript. */
export function isLogoLine(line: string): boolean {
  return line.trim() !== '' && BRAILLE_ART.test(line);
}

/** Joins lines the way completion compares them: right-trimmed, blank runs collapsed, trimmed. */
export function normaliseProjection(lines: readonly string[]): string {
  const out: string[] = [];
  for (const line of lines) {
    const l = line.trimEnd();
    if (l === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(l);
  }
  return out.join('\n').trim();
}
