import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

/**
 * The profile knows the working line only with a braille glyph: the dots spinner reads as the
 * idle prompt. The slow turn is never seen from the screen alone; the turn that then asks for
 * permission is reported a success when the tool call is drawn, 12 s before its true end.
 */
export const qwenCode: ToolExpectations = {
  inputBox: /^> +Type your message or @path\/to\/file/m,
  // Qwen Code 0.15.10 streams the reply and drops its spinner line within a poll or two.
  renderAllowanceSeconds: 0.5,
  scenarios: {
    startup: { turns: [], final: READY },
    // The folder is not trusted yet: "Do you trust this folder?" before the prompt.
    'startup-dialogs': { turns: [], final: READY, dialog: 'Do you trust this folder?' },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    // `● Request cancelled.`
    interrupted: { turns: ['interrupted'], final: READY },
    // Seven attempts with backoff (about 80 s; the client's own retries set to none), then
    // `✕ [API Error: 500 …] (Press Ctrl+Y to retry)`.
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    // The default: the client retries each of the seven attempts too (about 105 s).
    'error-500-default-retries': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // With the session record (docs/witness.md). Its record never marks an interrupt, so that
    // one is the screen's alone.
    'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['both'] },
    'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['surface'] },
    'record-error-400-slow': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
    'retry-interrupted': { turns: ['interrupted'], final: READY, endedByKey: true },
    'permission-approved': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
    // Denied (Escape), the tool is drawn cancelled (`-  Shell …`) and the turn ends without a
    // reply or a note: no outcome.
    'permission-denied': { turns: ['unknown'], final: READY, dialog: 'Allow execution of' },
    'quoted-chrome': { turns: ['success'], final: READY },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'size-250x60-normal-turn': { turns: ['success'], final: READY },
    'size-80x24-interrupted': { turns: ['interrupted'], final: READY },
    'size-250x60-interrupted': { turns: ['interrupted'], final: READY },
    'size-80x24-permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    'size-250x60-permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    // Run with TMUX set, as in a pane a user opens in tmux: the working line's glyph is then
    // `.  `, `.. `, `...` (docs/spinners.md). Streamed at 0.6 s a chunk.
    'tmux-env-slow-turn': {
      turns: ['success'],
      final: READY,
    },
    // Screen-reader mode (`--screen-reader`): `responding` where the glyph stands, no borders,
    // `User:` / `Model:` for the echo and the reply, one rule over the prompt line.
    'screen-reader-slow-turn-then-permission': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    'screen-reader-two-turns': { turns: ['success', 'success'], final: READY },
    // The same at 80x24: reply lines wrap to column 0.
    'size-80x24-screen-reader-two-turns': { turns: ['success', 'success'], final: READY },
    'screen-reader-interrupted': { turns: ['interrupted'], final: READY },
    // Retried for about 85 s under `responding`, then `✕ [API Error: 500 …` over the rule.
    'screen-reader-error-500': { turns: ['known_failure'], final: READY },
    // A hung stream under `responding` until it is interrupted; one frame is half drawn.
    'screen-reader-hang': { turns: ['interrupted'], final: READY, hang: true },
    // The same turns as above, with TMUX set.
    'tmux-env-long-turn-pause': { turns: ['success'], final: READY },
    // The requests fail and are retried for about 65 s before the error shows; the dots
    // spinner's line keeps the turn working all that time.
    'tmux-env-error-500': {
      turns: ['known_failure'],
      final: READY,
    },
    // A hung stream: the dots spinner keeps the turn working until it is interrupted.
    'tmux-env-hang': {
      turns: ['interrupted'],
      final: READY,
      hang: true,
    },
    'tmux-env-interrupted': {
      turns: ['interrupted'],
      final: READY,
    },
    'size-80x24-tmux-env-slow-turn': { turns: ['success'], final: READY },
    // Text streamed slowly, then a shell call that asks for permission, approved after 6 s.
    'tmux-env-slow-turn-then-permission': {
      turns: ['success'],
      final: READY,
      dialog: 'Allow execution of',
    },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
  },
};
