import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

export const pi: ToolExpectations = {
  // The empty editor: an empty line between two rules.
  inputBox: /^─{20,}\n *\n─{20,}$/m,
  // pi 0.73.1 draws the reply as it streams and drops its working line within a poll or two.
  renderAllowanceSeconds: 0.5,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    // `Operation aborted` as the turn's last line.
    interrupted: { turns: ['interrupted'], final: READY },
    // `retry.maxRetries: 1`: "Retrying (1/1) in 1s...", then "Error: Retry failed after 1 attempts".
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    // The default: three retries with backoff.
    'error-500-default-retries': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // Escape while a retry waits: "Error: Retry failed after 2 attempts: Retry cancelled".
    'retry-interrupted': { turns: ['interrupted'], final: READY, endedByKey: true },
    'quoted-chrome': { turns: ['success'], final: READY },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
  },
};
