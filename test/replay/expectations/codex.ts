import type { ScenarioExpectation, ToolExpectations } from '../expectations.js';
import { DOWN, GONE, READY, sameScenariosOf } from './common.js';

/**
 * The long-context recordings of 0.171.0 were made on a machine loaded 14-17 on two cores: the
 * finished frame came up to 1.74 s after the server's end (the last turn of
 * compact-error-then-success).
 */
const LOADED = { renderAllowanceSeconds: 1.5 } as const;

/** The scenarios as recorded on 0.169.0, in `test/fixtures/codex/`. */
const base: Record<string, ScenarioExpectation> = {
  startup: { turns: [], final: READY },
  'normal-turn': { turns: ['success'], final: READY },
  // A reply that ends under a second after the prompt: `Worked for <1s`.
  'quick-turn': { turns: ['success'], final: READY },
  // A reply that starts after a minute: `Worked for 1m 2s` (the status line reads `1m 02s`).
  'minute-turn': { turns: ['success'], final: READY },
  'long-turn-pause': { turns: ['success'], final: READY },
  'two-turns': { turns: ['success', 'success'], final: READY },
  interrupted: { turns: ['interrupted'], final: READY },
  'error-500': { turns: ['known_failure'], final: READY },
  // With the session record (docs/witness.md): the record and the screen agree on each.
  'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['both'] },
  'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['both'] },
  'record-error-500': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
  'error-529-overloaded': { turns: ['known_failure'], final: READY },
  'error-429-rate-limit': { turns: ['known_failure'], final: READY },
  'permission-prompt': {
    turns: ['success'],
    final: READY,
    dialog: 'Would you like to run the following command?',
  },
  hang: { turns: ['interrupted'], final: READY, hang: true },
  'cli-exit': { turns: ['success'], final: DOWN },
  'cli-killed': { turns: ['success'], final: DOWN },
  'session-killed': { turns: ['success'], final: GONE },
  // Screens a user's own recordings will have: other sizes, long replies, stale outcomes.
  'size-80x24-normal-turn': { turns: ['success'], final: READY },
  'size-80x24-interrupted': { turns: ['interrupted'], final: READY },
  'size-250x60-interrupted': { turns: ['interrupted'], final: READY },
  'size-80x24-permission-prompt': {
    turns: ['success'],
    final: READY,
    dialog: 'Would you like to run the following command?',
  },
  'size-250x60-permission-prompt': {
    turns: ['success'],
    final: READY,
    dialog: 'Would you like to run the following command?',
  },
  'size-80x24-long-reply': { turns: ['success'], final: READY },
  'size-200x50-normal-turn': { turns: ['success'], final: READY },
  'size-250x60-normal-turn': { turns: ['success'], final: READY },
  'long-reply-scrolls': { turns: ['success'], final: READY },
  'error-then-success': { turns: ['known_failure', 'success'], final: READY },
  'interrupted-then-success': { turns: ['interrupted', 'success'], final: READY },
  'multiline-prompt': { turns: ['success'], final: READY },
  'draft-over-old-marker': { turns: ['interrupted'], final: READY },
  'startup-trust-dialog': { turns: [], final: READY, dialog: 'Trust this folder?' },
  'startup-fresh-home': { turns: ['success'], final: READY },
  'enter-during-startup': { turns: ['success'], final: READY },
};

export const codex: ToolExpectations = {
  inputBox: /^› /m,
  // Codex 0.169.0 draws the reply as it streams and the "Worked for Ns" line right after.
  // Measured: 0.05-0.37 s from the server's end to the first finished frame (0.37 s in
  // cli-exit), i.e. up to 0.12 s beyond the 0.25 s poll. 0.171.0, recorded at a load of 2.5-7 on
  // two cores: 0.10-0.39 s (0.385 s in draft-over-old-marker).
  renderAllowanceSeconds: 0.15,
  scenarios: {
    ...base,
    // 0.171.0: the same scenarios, recorded into test/fixtures/codex/0.171.0/ and held to the
    // same checks (its session record read as 0.169.0's: docs/session-records.md).
    ...sameScenariosOf('0.171.0', base),
    // Long conversations (the fake usage near a 100,000-token window, the provider named OpenAI):
    // Codex compacts before the next prompt. A failed compaction fails that turn, and its error
    // cell next to the prompt reads the chat context degraded, with the reason.
    '0.171.0/compact-auto': { turns: ['success', 'success'], final: READY, ...LOADED },
    '0.171.0/compact-error-500': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_remote_compact_server_error',
        shownBy: /^■ Error running remote compact task: /m,
      },
    },
    '0.171.0/compact-stream-disconnected': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_remote_compact_stream_disconnected',
        shownBy: /^■ Error running remote compact task: /m,
      },
    },
    '0.171.0/compact-context-length-exceeded': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_remote_compact_context_length_exceeded',
        shownBy: /^■ Error running remote compact task: /m,
      },
    },
    '0.171.0/compact-unknown-parameter': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_remote_compact_unknown_parameter',
        shownBy: /^■ Error running remote compact task: /m,
      },
    },
    // The prompt itself overflows the window: `■ Codex ran out of room in the model's context
    // window. …`, read as the context degraded (no compaction was tried).
    '0.171.0/context-length-exceeded': {
      turns: ['known_failure'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_context_length_exceeded',
        shownBy: /^■ Codex ran out of room in the model's context window/m,
      },
    },
    // The next prompt compacts and is answered: the old error cell is history, not the context.
    '0.171.0/compact-error-then-success': {
      turns: ['success', 'known_failure', 'success'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'codex_remote_compact_server_error',
        shownBy: /^■ Error running remote compact task: /m,
        cleared: true,
      },
    },
  },
};
