import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

/**
 * The long-context recordings of 1.18.33 were made with three CLIs recording at once on two
 * shared cores: the failed compaction's block came up to 6.29 s after the server's end (turn-1
 * of compact-context-length-exceeded).
 */
const LOADED = { renderAllowanceSeconds: 6.5 } as const;

export const opencode: ToolExpectations = {
  inputBox: /ctrl\+p commands/,
  // opencode 1.18.33 draws the reply as it streams and the footer's duration soon after the
  // stream's end, but keeps its working bar a while after a request failed. Measured from the
  // server's end to the first idle frame: 0.1-1.16 s for replies (1.16 s in cli-killed), 2.55 s
  // for the error in error-400, i.e. up to 2.3 s beyond the 0.25 s poll.
  renderAllowanceSeconds: 2.35,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    // Two Escapes: the footer reads `· interrupted`.
    interrupted: { turns: ['interrupted'], final: READY },
    // Five retries ("[retrying in 4s attempt #3]"), then the provider's message in a block
    // above the message footer. opencode has no setting for fewer retries.
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    // A 400 is not retried.
    'error-400': { turns: ['known_failure'], final: READY },
    // Escape while a retry waits: the footer shows neither a duration nor `interrupted`, so the
    // screen does not say how the turn ended. No outcome, never a guessed one.
    'retry-interrupted': { turns: ['unknown'], final: READY, endedByKey: true },
    'permission-approved': { turns: ['success'], final: READY, dialog: 'Permission required' },
    // Rejected, the turn ends with a bare footer: no outcome to report.
    'permission-denied': { turns: ['unknown'], final: READY, dialog: 'Permission required' },
    // Allow always, then its confirmation (`△ Always allow`): both hold the turn; the same
    // command in the next turn runs unasked.
    'permission-allow-always': { turns: ['success', 'success'], final: READY, dialog: '△' },
    'size-80x24-allow-always': { turns: ['success', 'success'], final: READY, dialog: '△' },
    'quoted-chrome': { turns: ['success'], final: READY },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    // At 250 columns opencode draws a sidebar; one frame, caught while the turn's screen is
    // being redrawn (the prompt box not yet there), matches no shape of the profile. It reads
    // unknown, which is safe, but the profile does not know it.
    'size-80x24-interrupted': { turns: ['interrupted'], final: READY },
    'size-250x60-interrupted': { turns: ['interrupted'], final: READY },
    'size-80x24-permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Permission required',
    },
    'size-250x60-permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Permission required',
    },
    // One frame is captured mid-redraw (the session's top rows and sidebar, the rest blank):
    // it reads unknown, as it should (test/replay/recognised.test.ts, docs/profiles.md).
    'size-250x60-normal-turn': { turns: ['success'], final: READY },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
    // Long conversations (the first reply reports 125,000 input tokens of a declared
    // 128,000-token window). opencode compacts
    // right after such a turn: `▣  Compaction · fake-model · 462ms` under the summary, then a
    // turn of its own to continue; the context stays current.
    '1.18.33/context-near-full': { turns: ['success', 'success'], final: READY },
    // The compaction's request is refused as too long: an error block above the compaction's
    // footer (which keeps its duration), read as a failure and the context degraded.
    '1.18.33/compact-context-length-exceeded': {
      turns: ['known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'opencode_too_large_to_compact',
        shownBy: /┃ {2}Session too large to compact - context exceeds model limit/,
      },
    },
    // The prompt is refused as too long; opencode compacts to recover, and that fails too.
    '1.18.33/context-length-exceeded': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'opencode_too_large_to_compact',
        shownBy: /┃ {2}Conversation history too large to compact - exceeds model context limit/,
      },
    },
    // The next prompt compacts again, and works: the failure above it is history.
    '1.18.33/compact-error-then-success': {
      turns: ['known_failure', 'success'],
      final: READY,
      chatContext: {
        degradedErrorType: 'opencode_too_large_to_compact',
        shownBy: /┃ {2}Session too large to compact - context exceeds model limit/,
        cleared: true,
      },
    },
  },
};
