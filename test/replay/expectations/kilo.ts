import type { ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

const LOADED = { renderAllowanceSeconds: 2.1 } as const;

export const kilo: ToolExpectations = {
  inputBox: /ctrl\+p commands/,
  // Kilo 7.7.7, like opencode, keeps its working bar a moment after a request failed. Measured
  // from the server's end to the first idle frame: up to 1.0 s, i.e. 0.75 s beyond the poll.
  renderAllowanceSeconds: 1.0,
  scenarios: {
    startup: { turns: [], final: READY },
    'normal-turn': { turns: ['success'], final: READY },
    'long-turn-pause': { turns: ['success'], final: READY },
    'two-turns': { turns: ['success', 'success'], final: READY },
    interrupted: { turns: ['interrupted'], final: READY },
    // KILO_SESSION_RETRY_LIMIT=1: one retry, then the provider's message in a block.
    'error-500': { turns: ['known_failure'], final: READY },
    'error-429-rate-limit': { turns: ['known_failure'], final: READY },
    // The default: five retries over about 70 s.
    'error-500-default-retries': { turns: ['known_failure'], final: READY },
    'error-400': { turns: ['known_failure'], final: READY },
    // Escape while a retry waits: a bare footer, as in opencode. No outcome.
    'retry-interrupted': { turns: ['unknown'], final: READY, endedByKey: true },
    'permission-approved': { turns: ['success'], final: READY, dialog: 'Permission required' },
    // Rejected, Kilo asks what to do instead (`△ Reject permission`, still the operator's turn);
    // Enter with no answer ends the turn with a bare footer: no outcome.
    'permission-denied': { turns: ['unknown'], final: READY, dialog: '△' },
    // Allow always, then its confirmation (`△ Always allow`): both hold the turn; the same
    // command in the next turn runs unasked.
    'permission-allow-always': { turns: ['success', 'success'], final: READY, dialog: '△' },
    'size-80x24-allow-always': { turns: ['success', 'success'], final: READY, dialog: '△' },
    'quoted-chrome': { turns: ['success'], final: READY },
    hang: { turns: ['interrupted'], final: READY, hang: true },
    'size-80x24-normal-turn': { turns: ['success'], final: READY },
    'cli-exit': { turns: ['success'], final: DOWN },
    'cli-killed': { turns: ['success'], final: DOWN },
    // Long conversations (docs/profiles.md, "The chat context"). The first reply reports
    // 125,000 input tokens of a declared 128,000-token window: Kilo draws `125.0K (98%)` on its
    // status row and does not compact after the turn, only before the next prompt (the refusal
    // planned for a compaction right after the turn was never asked for). Recorded with three CLIs recording at once on two shared cores: the finished
    // frame came up to 2.04 s after the server's end (turn-1 of context-length-exceeded).
    // The next prompt compacts first (`▣  Compaction · fake-model · 1.2s` under the summary),
    // then is answered: current.
    '7.7.7/context-near-full': { turns: ['success', 'success'], final: READY, ...LOADED },
    '7.7.7/compact-context-length-exceeded': {
      turns: ['success'],
      final: READY,
      ...LOADED,
    },
    // A prompt refused as too long: Kilo compacts, that request is refused too, Kilo compacts
    // again with success (`▣  Compaction · fake-model · 4.5s`) and the prompt is answered. No
    // failure stays on the screen: the context stays current.
    '7.7.7/context-length-exceeded': {
      turns: ['success', 'success'],
      final: READY,
      ...LOADED,
    },
  },
};
