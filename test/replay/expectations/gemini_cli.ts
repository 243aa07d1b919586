import type { ToolExpectations } from '../expectations.js';
import { DOWN, GONE, READY } from './common.js';

export const geminiCli: ToolExpectations = {
  inputBox: /^ > +Type your message/m,
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
    'error-529-overloaded': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY, dialog: '1. Keep trying' },
    'permission-prompt': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    // The one input is `/quit`: no model request, so never an outcome.
    'cli-exit': { turns: ['none'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
    // Recorded without a prompt: the tmux session is killed while the CLI idles.
    'session-killed': { turns: [], final: GONE },
  },
};
