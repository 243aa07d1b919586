import type { FailureKind } from '../../schemas/signals.js';

/**
 * pi's screen vocabulary. pi draws prompts and replies alike (one space in, no glyph; only
 * colour tells them apart, and paneward reads text), so the latest turn is read from its last
 * line and the footer. Every marker was seen in the recordings under `test/fixtures/pi/` (the
 * scenario named beside it).
 */
export interface PiVocabulary {
  /** The editor sits between two full-width rules, an empty line when empty (startup). */
  rule: RegExp;
  /** The header line naming the version, and the key hints under it (startup). */
  header: RegExp;
  hints: RegExp;
  /** Printed before the first screen when offline: `fd not found. Offline mode enabled, …` (startup). */
  startupNote: RegExp;
  /** Right above the editor while a turn runs: `⠋ Working...` (normal-turn). */
  working: RegExp;
  /** `⠦ Retrying (1/1) in 1s... (escape to cancel)` (error-500). */
  retrying: RegExp;
  /**
   * Right above the editor while pi compacts: `⠋ Auto-compacting... (escape to cancel)`, after a
   * context overflow `Context overflow detected, Auto-compacting...` (0.73.1/context-near-full).
   */
  compacting: RegExp;
  /**
   * The compaction's failures, each the start of the transcript's last paragraph (its wrapped
   * lines joined with spaces, one space in): why, in pi's terms, first match wins.
   */
  contextErrors: ReadonlyArray<{ type: string; re: RegExp }>;
  /** `Operation aborted` as the turn's last line (interrupted). */
  aborted: RegExp;
  /** `Error: Retry failed after 1 attempts: 500 …` as the turn's last line (error-500). */
  error: RegExp;
  /** Escape during a retry's wait: `Error: Retry failed after 2 attempts: Retry cancelled` (retry-interrupted). */
  retryCancelled: RegExp;
  /** Token counters in the footer (`↑1.2k ↓22`), drawn once a reply has finished (normal-turn). */
  tokens: RegExp;
  failures: ReadonlyArray<{ kind: FailureKind; re: RegExp }>;
}

/** pi 0.73.1. */
export const PI_0_73: PiVocabulary = {
  rule: /^─{20,}$/,
  header: /^ pi v\d+\.\d+\.\d+$/,
  hints: /^ escape interrupt · ctrl\+c\/ctrl\+d clear\/exit\b/,
  startupNote: /^(?:fd|ripgrep) not found\. Offline mode enabled, skipping download\.$/,
  working: /^ \S Working\.\.\.$/,
  retrying: /^ \S Retrying \(\d+\/\d+\) in \d+s\.\.\. \(escape to cancel\)$/,
  compacting: /^ \S (?:Context overflow detected, )?Auto-compacting\.\.\. \(escape to cancel\)$/,
  contextErrors: [
    // 0.73.1/compact-context-length-exceeded, compact-error-500: the compaction after a turn
    // failed, `Auto-compaction failed: Summarization failed: 400 This model's maximum …`.
    { type: 'pi_auto_compaction_failed', re: /^ Auto-compaction failed: / },
    // 0.73.1/context-length-exceeded: the provider refused the prompt as too long and the
    // compaction meant to recover failed, `Context overflow recovery failed: Summarization
    // failed: …`; or the prompt, sent again after a compaction, was refused again (`Context
    // overflow recovery failed after one compact-and-retry attempt. …`).
    { type: 'pi_context_overflow_recovery_failed', re: /^ Context overflow recovery failed\b/ },
  ],
  aborted: /^ Operation aborted$/,
  error: /^ Error: (.+)$/,
  retryCancelled: /^ Error: Retry failed after \d+ attempts?: Retry cancelled$/,
  tokens: /^↑[\d.]+k? ↓[\d.]+k? /,
  failures: [],
};
