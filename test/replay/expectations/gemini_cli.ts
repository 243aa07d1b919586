import type { ToolExpectations } from '../expectations.js';
import { DOWN, GONE, READY } from './common.js';

/**
 * The long-conversation recordings were made on a machine loaded about 15 on two cores: the
 * finished frame came up to 1.05 s after the server's end (context-length-exceeded).
 */
const LOADED = { renderAllowanceSeconds: 1.1 } as const;

export const geminiCli: ToolExpectations = {
  // The screen-reader view draws the prompt line at column 0, without the box.
  inputBox: /^ ?> +Type your message/m,
  // Gemini CLI 0.61.0 streams the reply and removes the spinner within a few frames.
  // Measured: 0.12-0.54 s from the server's end to the first finished frame (0.54 s in
  // cli-killed), i.e. up to 0.29 s beyond the 0.25 s poll.
  renderAllowanceSeconds: 0.3,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    interrupted: { turns: ['interrupted'], final: READY },
    // After a failed request Gemini asks "Keep trying / Stop"; the turn waits on the operator.
    'error-500': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
    // With the session record (docs/witness.md). Its record never marks a finished reply, so a
    // success is the screen's alone.
    'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['surface'] },
    'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['both'] },
    'record-error-500': {
      turns: ['known_failure'],
      final: READY,
      dialog: '1. Keep trying',
      witnesses: ['both'],
    },
    'error-529-overloaded': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
    'permission-prompt': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    // The one input is `/quit`: no model request, so never an outcome.
    'cli-exit': { turns: ['none'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
    // Recorded without a prompt: the tmux session is killed while the CLI idles.
    'session-killed': { turns: [], final: GONE },
    // Terminal sizes other than the 120x40 above: tmux's detached default and a wide one.
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'size-80x24-interrupted': { turns: ['interrupted'], final: READY },
    'size-250x60-interrupted': { turns: ['interrupted'], final: READY },
    'size-80x24-permission-prompt': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    'size-250x60-permission-prompt': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    'size-200x50-normal-turn': { turns: ['success'], final: READY },
    'size-250x60-normal-turn': { turns: ['success'], final: READY },
    // `ui.showSpinner: false`: the working line has no glyph (docs/spinners.md). Text streamed at
    // 0.6 s a chunk, then a shell call that asks for permission, approved after 6 s.
    'no-spinner-slow-turn': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
    // Screen-reader view: no borders, `responding` where the glyph stands; the same turn.
    'screen-reader-slow-turn': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
    // The same view: the retry dialog as plain lines (`(checked) 1. Keep trying`), then the
    // error (`✕  [API Error: …`, two spaces), then a success.
    'screen-reader-error-then-success': {
      turns: ['known_failure', 'success'],
      final: READY,
      dialog: '1. Keep trying',
    },
    // The same at 80x24 (the first-run note wraps to four lines; one frame is half drawn).
    'size-80x24-screen-reader-interrupted-then-success': {
      turns: ['interrupted', 'success'],
      final: READY,
    },
    // The same view: the cancel note (`ℹ  Request cancelled.`, two spaces here), then a success.
    'screen-reader-interrupted-then-success': {
      turns: ['interrupted', 'success'],
      final: READY,
    },
    // 90 reply lines push the prompt echo and the reply's first line off the screen.
    'long-reply-scrolls': { turns: ['success'], final: READY },
    // Three lines typed with Ctrl+J between them, submitted with one Enter.
    'multiline-prompt': { turns: ['success'], final: READY },
    // Start-up dialogs of a new user: the folder is not in trustedFolders.json (the CLI
    // restarts after "Trust folder"); no auth type is selected (the picker, then the key box).
    // The restarted CLI draws its prompt box under the old dialog's text, so the dialog is
    // checked on its live frames in test/profiles/gemini_cli/startup-dialogs.test.ts.
    'startup-trust-dialog': { turns: [], final: READY },
    'startup-auth-dialog': { turns: [], final: READY, dialog: 'Gemini API Key' },
    // write_file asks "Apply this change?" before it writes.
    'edit-approval': { turns: ['success'], final: READY, dialog: 'Apply this change?' },
    // Turn 1's error or cancel notice stays on screen above turn 2's prompt echo.
    'error-then-success': {
      turns: ['known_failure', 'success'],
      final: READY,
      dialog: '1. Keep trying',
    },
    'interrupted-then-success': { turns: ['interrupted', 'success'], final: READY },
    // After the cancelled turn a draft is typed and left unsent: no new outcome, still ready.
    'draft-over-old-marker': { turns: ['interrupted'], final: READY },
    // 503s under the CLI's default retries (10 attempts, long backoff, errors not shown): only
    // the spinner for ~50 s, then Escape while an attempt is in flight.
    'error-default-settings': { turns: ['interrupted'], final: READY },
    // `?` in an empty box opens the shortcuts help; the next key closes it and types on.
    'shortcuts-help': { turns: ['success'], final: READY },
    // Long conversations, the reported usage near the 1,048,576-token window (docs/profiles.md,
    // "The chat context"). Over half of it, the next prompt compresses the history first
    // (`ℹ Context compressed from 57% to 0%. …`) and is answered: the context stays current.
    'context-near-full': { turns: ['success', 'success'], final: READY, ...LOADED },
    // 6 tokens left and no compression before the prompt (`model.compressionThreshold: 1`): the
    // prompt is not sent (`ℹ Sending this message (13 tokens) might exceed the context window
    // limit (6 tokens left). …`) and goes back into the box: no request and no outcome, the
    // turn over.
    'context-window-overflow': {
      ...LOADED,
      turns: ['success', 'unknown'],
      unsent: [2],
      final: READY,
      chatContext: {
        degradedErrorType: 'gemini_context_window_will_overflow',
        shownBy: /^ℹ Sending this message \(/m,
      },
    },
    // The same, then `/compress` typed at the keyboard (`✦ Chat history compressed from 1048570
    // to 171 tokens.`) and a prompt answered: the notice is history.
    'context-window-overflow-then-compress': {
      ...LOADED,
      turns: ['success', 'unknown', 'success'],
      unsent: [2],
      final: READY,
      chatContext: {
        degradedErrorType: 'gemini_context_window_will_overflow',
        shownBy: /^ℹ Sending this message \(/m,
        cleared: true,
      },
    },
    // `/compress` typed at the keyboard, its summary request itself over the window (the API's
    // 400): `✕ Failed to compress chat history: Failed to generate content: {…}`.
    'compress-context-length-exceeded': {
      ...LOADED,
      turns: ['success'],
      final: READY,
      chatContext: {
        degradedErrorType: 'gemini_compress_input_token_count_exceeded',
        shownBy: /^✕ Failed to compress chat history: /m,
      },
    },
    // The prompt itself over the window: the API's 400 as the turn's error line.
    'context-length-exceeded': {
      ...LOADED,
      turns: ['known_failure'],
      final: READY,
      chatContext: {
        degradedErrorType: 'gemini_input_token_count_exceeded',
        shownBy: /^✕ \[API Error: .*The input token count/m,
      },
    },
  },
};
