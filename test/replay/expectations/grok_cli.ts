import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

/** grok-cli's error item for the provider's refusal of a prompt too long for the window. */
const REFUSAL = /^ {2}⏺ Sorry, I encountered an error: Grok API error: 400 This model's maximum/m;

export const grokCli: ToolExpectations = {
  inputBox: /│ ❯ Ask me anything\.\.\./,
  // grok-cli 0.0.34 draws the reply as it streams and drops its working line within a poll.
  renderAllowanceSeconds: 0.5,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    // The Enter read with the paste is taken into the draft and the box is drawn garbled: a
    // draft, not a turn, until the second Enter submits it.
    'enter-in-paste': { turns: ['success'], final: READY },
    // `[Operation cancelled by user]` under the partial reply.
    interrupted: { turns: ['interrupted'], final: READY },
    // The client's own two retries, then "⏺ Sorry, I encountered an error: Grok API error: 500 …".
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // The retries are over within a second or two: the error is shown before the Escape comes.
    'retry-interrupted': { turns: ['known_failure'], final: READY },
    'permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Do you want to proceed with this operation?',
    },
    // Denied, the tool reports "Operation cancelled by user (pressed Escape)" to the model, which
    // answers: the turn ends with that reply.
    'permission-denied': {
      turns: ['success'],
      final: READY,
      dialog: 'Do you want to proceed with this operation?',
    },
    'quoted-chrome': { turns: ['success'], final: READY },
    // Escape before any reply text: grok-cli leaves the prompt echo alone, with no note of the
    // interrupt, and leaves the hung request open. The turn ended; how, the screen does not say.
    hang: { turns: ['unknown'], final: READY, abandonsStream: true },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
    // Long conversations (docs/profiles.md, "The chat context"): grok-cli knows no window and
    // draws nothing of a reported usage of 950,000 input tokens.
    '0.0.34/context-near-full': { turns: ['success', 'success'], final: READY },
    // The provider refuses the prompt (400 `context_length_exceeded`): degraded.
    '0.0.34/context-length-exceeded': {
      turns: ['known_failure'],
      final: READY,
      chatContext: { degradedErrorType: 'grok_cli_context_length_exceeded', shownBy: REFUSAL },
    },
    // A later prompt answered: the refusal is history, current again.
    '0.0.34/context-length-exceeded-then-success': {
      turns: ['known_failure', 'success'],
      final: READY,
      chatContext: {
        degradedErrorType: 'grok_cli_context_length_exceeded',
        shownBy: REFUSAL,
        cleared: true,
      },
    },
  },
};
