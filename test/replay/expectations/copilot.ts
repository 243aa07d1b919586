import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

/**
 * The long-conversation recordings were made on a machine loaded about 9 on two cores: the
 * outcome's frame came up to 2.73 s after the server's end (context-length-exceeded).
 */
const LOADED = { renderAllowanceSeconds: 2.5 } as const;

/** Copilot's line for the provider's refusal of a prompt too long for the window. */
const CONTEXT_400 = /^ ✗ 400 This model's maximum context length is /m;

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
    // Long conversations (docs/profiles.md, "The chat context"), the window 100,000 tokens.
    // Near or past a full window Copilot compacts beside the next prompt: `● Compacting
    // conversation history...`, then `● Compaction completed`; the context stays current.
    '1.0.102/context-near-full': { turns: ['success', 'success'], final: READY, ...LOADED },
    '1.0.102/context-over-full': { turns: ['success', 'success'], final: READY, ...LOADED },
    // The provider refuses the prompt (400 `context_length_exceeded`): `✗ 400 This model's
    // maximum context length is …`, next to the prompt: degraded.
    '1.0.102/context-length-exceeded': {
      turns: ['known_failure'],
      final: READY,
      ...LOADED,
      chatContext: { degradedErrorType: 'copilot_context_length_exceeded', shownBy: CONTEXT_400 },
    },
    // The compaction beside the prompt refused too: Copilot draws no line of its own for that
    // (`● Compacting conversation history...` stays); the prompt's refusal reads degraded.
    '1.0.102/context-all-refused': {
      turns: ['success', 'known_failure'],
      final: READY,
      ...LOADED,
      chatContext: { degradedErrorType: 'copilot_context_length_exceeded', shownBy: CONTEXT_400 },
    },
    // A later prompt answered: the refusal is history, current again.
    '1.0.102/context-length-exceeded-then-success': {
      turns: ['known_failure', 'success'],
      final: READY,
      ...LOADED,
      chatContext: {
        degradedErrorType: 'copilot_context_length_exceeded',
        shownBy: CONTEXT_400,
        cleared: true,
      },
    },
  },
};
