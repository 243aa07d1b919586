import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

// Cline CLI 3.0.65 draws a reply cut short by Escape exactly as a finished one (` * …`, no note
// of the interrupt), so no reply is reported as a success: its turn completes with no outcome.
// Only errors are told.
/** Cline's error item when the window is exceeded and nothing is left to compact. */
const REFUSAL = /^ \*Error: The request exceeds the model's context window/m;
const NOTHING_TO_COMPACT = 'cline_context_window_exceeded_nothing_to_compact';

export const cline: ToolExpectations = {
  inputBox: /❯ (?:What can I do for you\?|Ask anything\.\.\.)/,
  // Cline streams the reply and turns its spinner glyph into `*` within a poll or two.
  // Measured from the server's end to the first idle frame: up to 0.9 s (hang, where the turn
  // ends on the Escape), i.e. 0.65 s beyond the 0.25 s poll.
  renderAllowanceSeconds: 0.7,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['unknown'], final: READY },
    'long-turn-pause': { turns: ['unknown'], final: READY },
    'two-turns': { turns: ['unknown', 'unknown'], final: READY },
    // The Enter read with the paste stays in the draft (the logo redrawn as it is typed is no
    // change of the transcript) until the second Enter submits it.
    'enter-in-paste': { turns: ['unknown'], final: READY },
    interrupted: { turns: ['unknown'], final: READY },
    // About a minute of the client's own retries, then ` * Error: <the provider's message>`.
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // With the session record (docs/witness.md), a finished reply is a success: the record has
    // the reply and the screen reads its idle prompt. The messages never tell an interrupt
    // (Cline drops the partial reply); Cline's log, recorded beside them, says `aborted`.
    'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['both'] },
    'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['record'] },
    'record-error-400': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
    'record-error-500': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
    'record-two-turns': {
      turns: ['success', 'success'],
      final: READY,
      witnesses: ['both', 'both'],
    },
    'record-turn-then-interrupted': {
      turns: ['success', 'interrupted'],
      final: READY,
      witnesses: ['both', 'record'],
    },
    'record-long-turn-pause': { turns: ['success'], final: READY, witnesses: ['both'] },
    'record-permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Approve tool call?',
      witnesses: ['both'],
    },
    'record-quoted-chrome': { turns: ['success'], final: READY, witnesses: ['both'] },
    'retry-interrupted': { turns: ['unknown'], final: READY, endedByKey: true },
    'permission-approved': { turns: ['unknown'], final: READY, dialog: 'Approve tool call?' },
    'permission-denied': { turns: ['unknown'], final: READY, dialog: 'Approve tool call?' },
    'quoted-chrome': { turns: ['unknown'], final: READY },
    hang: { turns: ['unknown'], final: READY, hang: true },
    'size-80x24-normal-turn': { turns: ['unknown'], final: READY },
    'cli-exit': { turns: ['unknown'], final: DOWN },
    'cli-killed': { turns: ['unknown'], final: DOWN },
    // Long conversations (docs/profiles.md, "The chat context"): with 95% and 110% of a
    // 128,000-token window reported, Cline shows the figure in its footer (`fake-model
    // (121,600)`) and nothing else; no compaction request was made.
    '3.0.65/context-near-full': { turns: ['unknown', 'unknown'], final: READY },
    '3.0.65/context-over-full': { turns: ['unknown', 'unknown'], final: READY },
    // The provider refuses the prompt (400 `context_length_exceeded`): `* context window exceeded
    // — compacting and retrying`, nothing to compact, then `*Error: The request exceeds the
    // model's context window and there is no conversation history to compact — …`: degraded.
    '3.0.65/context-length-exceeded': {
      turns: ['known_failure'],
      final: READY,
      chatContext: { degradedErrorType: NOTHING_TO_COMPACT, shownBy: REFUSAL },
    },
    // A later prompt answered: the error is history, current again.
    '3.0.65/context-length-exceeded-then-success': {
      turns: ['known_failure', 'unknown'],
      final: READY,
      chatContext: { degradedErrorType: NOTHING_TO_COMPACT, shownBy: REFUSAL, cleared: true },
    },
  },
};
