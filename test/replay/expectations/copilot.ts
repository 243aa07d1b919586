import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

export const copilot: ToolExpectations = {
  inputBox: /^❯\s*$/m,
  // Copilot CLI 1.0.102 draws the reply as it streams and drops the working row soon after.
  // Measured from the server's end to the first idle frame: up to 0.76 s (two-turns), i.e.
  // 0.51 s beyond the 0.25 s poll.
  renderAllowanceSeconds: 0.55,
  scenarios: {
    startup: { turns: [], final: READY },
    'startup-dialogs': {
      turns: [],
      final: READY,
      dialog: 'Do you trust the files in this folder?',
    },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    // Two Escapes, the second soon after the first: `● Operation cancelled by user`.
    interrupted: { turns: ['interrupted'], final: READY },
    // Five retries ("Request failed due to a transient API error. Retrying..."), then
    // "✗ Failed to get response from the AI model; retried 5 times … Last error: 500 …".
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // With the session record (docs/witness.md): the record and the screen agree on each.
    'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['both'] },
    'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['both'] },
    'record-error-400': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
    // Two Escapes while a retry waits: `● Operation cancelled by user`.
    'retry-interrupted': { turns: ['interrupted'], final: READY, endedByKey: true },
    'permission-approved': {
      turns: ['success'],
      final: READY,
      dialog: 'Do you want to run this command?',
    },
    // Denied, Copilot ends the turn with "● Operation cancelled by user".
    'permission-denied': {
      turns: ['interrupted'],
      final: READY,
      dialog: 'Do you want to run this command?',
    },
    'quoted-chrome': { turns: ['success'], final: READY },
    // Two Escapes before any reply text: Copilot takes the prompt back into the box to edit
    // ("esc esc edit prompt") and leaves no note of the interrupt. No outcome.
    hang: { turns: ['unknown'], final: READY },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
  },
};
