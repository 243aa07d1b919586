import type { ProfileResult, QuestionKind } from '../schemas/signals.js';

/** One capture of a pane. */
export interface Screen {
  /** The pane as `capture-pane -p` prints it. */
  text: string;
  /** The same capture with escapes (`capture-pane -p -e`), when recorded. */
  ansi?: string;
}

/**
 * A tool profile: how one agent CLI's screens read. Pure: the same screen always gives the
 * same result; all memory across frames lives in the tracker.
 */
export interface ToolProfile {
  /** Profile id as used in recordings and the public state (`claude_code`, `codex`, ...). */
  id: string;
  /** The version range or label this parser was built and verified against. */
  verifiedVersions: string;
  /**
   * The exact versions whose screens were recorded and verified; a pane running another version
   * is read with the nearest vocabulary, unverified (see `isVerifiedVersion` in the registry).
   */
  verified?: readonly string[];
  /**
   * npm packages the CLI ships as (platform builds such as `@github/copilot-linux-x64` count
   * too): a running CLI's version is read from their `package.json`.
   */
  packages?: readonly string[];
  /**
   * True when this profile reads no screen at all because its version is newer than every
   * verified one and the strict gate is on (see {@link ProfileOptions.verifiedOnly}): every
   * frame is unrecognised.
   */
  unverifiedUnread?: boolean;
  /** Process names (argv[0] basenames or script names) that mean the agent runs in the pane. */
  processNames: readonly string[];
  /** tmux key names that interrupt a running turn (sent as keys, not text). */
  interruptKeys: readonly string[];
  /**
   * How many times the interrupt keys must be pressed (default 1): opencode, Kilo and Copilot
   * CLI arm the interrupt on the first Escape and interrupt on the second. Two Escapes sent in
   * one `send-keys` arrive together and read as Alt+Escape, so each press is its own send,
   * `interruptKeyGapMs` apart.
   */
  interruptPresses?: number;
  /** Pause between two presses of the interrupt keys, in ms. */
  interruptKeyGapMs?: number;
  /**
   * The CLI puts an interrupted prompt back into its box as a draft (Qwen Code 0.24): these keys
   * clear one line of it. After paneward interrupts a turn it typed, it clears what was put
   * back, so the box is empty again as before the turn and the next prompt is not joined to it.
   */
  clearPutBackDraftKeys?: readonly string[];
  /** tmux key names that submit the typed prompt. */
  submitKeys: readonly string[];
  /**
   * Pause between the pasted prompt being drawn and the submit keys, in ms (default 0): for a
   * CLI that drops an Enter arriving right after a paste.
   */
  submitDelayMs?: number;
  /**
   * How long a dialog must have been drawn before it takes a choice, in ms (default 0). Claude
   * Code 2.1.332 lets keys that arrive right after its permission dialog appears only move the
   * cursor, so a keystroke meant for the prompt box cannot approve a command. Its digit then
   * moves the cursor and nothing is confirmed. paneward waits this long after reading the
   * dialog, reads it again, and only then types the answer.
   */
  answerSettleMs?: number;
  /**
   * How long an answered dialog of a kind may stay drawn before the answer counts as failed, in
   * ms (default 5 s, or ten polls). Gemini CLI and Qwen Code start again once a folder is trusted,
   * and the old screen, dialog and all, stays drawn until the new process paints: on a loaded
   * machine that is longer than 5 s. Nothing is typed again while paneward waits.
   */
  answerCloseMs?: Partial<Record<QuestionKind, number>>;
  /**
   * Lines of the projection that are the CLI's, not the reply's, left out of a reply read from
   * the screen (opencode's message footer `▣  Build · model · 7.4s`). The projection keeps them:
   * that they were drawn tells the turn moved.
   */
  replyChrome?: readonly RegExp[];
  /** Parses one frame. */
  parse(screen: Screen): ProfileResult;
}

/** How a profile treats a version it was not verified against. */
export interface ProfileOptions {
  /**
   * The strict gate: a version newer than every verified one is not read at all (every frame
   * unrecognised, readiness `unknown`, never a success) until someone verifies it. Off by
   * default: such a version is read with the newest vocabulary and marked unverified
   * (docs/profiles.md, "Versions and drift").
   */
  verifiedOnly?: boolean;
}

/** Picks a parser for a tool version; profiles whose screens changed across versions use it. */
export type ProfileFactory = (toolVersion?: string, options?: ProfileOptions) => ToolProfile;

/**
 * How paneward installs a CLI's hooks (docs/hooks.md): into Claude Code's settings files, as
 * Cline's hook scripts, or as an opencode-style plugin (opencode, Kilo).
 */
export type HookMechanism = 'claude_settings' | 'cline_scripts' | 'opencode_plugin';
