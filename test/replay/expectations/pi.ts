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
    // Long conversations (the first reply reports 125,000 input tokens of a declared
    // 128,000-token window): pi compacts after the turn (`⠋ Auto-compacting... (escape to
    // cancel)`, read as working), then shows `[compaction]` and `Compacted from 125,022 tokens`.
    '0.73.1/context-near-full': { turns: ['success', 'success'], final: READY },
    // The compaction's request is refused: `Auto-compaction failed: Summarization failed: 400 …`
    // under the reply, which still ends the turn well; the context reads degraded.
    '0.73.1/compact-context-length-exceeded': {
      turns: ['success'],
      final: READY,
      chatContext: {
        degradedErrorType: 'pi_auto_compaction_failed',
        shownBy: /^ Auto-compaction failed: /m,
      },
    },
    // The compaction's request fails with a 500, once retried: `Auto-compacting...` stands for
    // 1.6 s between the turn's last request and the idle prompt.
    '0.73.1/compact-error-500': {
      turns: ['success'],
      final: READY,
      renderAllowanceSeconds: 2,
      chatContext: {
        degradedErrorType: 'pi_auto_compaction_failed',
        shownBy: /^ Auto-compaction failed: Summarization failed: 500 /m,
      },
    },
    // The prompt is refused as too long (`Error: 400 …`, the turn's failure); the compaction
    // meant to recover is refused too: `Context overflow recovery failed: Summarization failed: …`.
    '0.73.1/context-length-exceeded': {
      turns: ['success', 'known_failure'],
      final: READY,
      chatContext: {
        degradedErrorType: 'pi_context_overflow_recovery_failed',
        shownBy: /^ Context overflow recovery failed: /m,
      },
    },
    // The next prompt compacts first, and that works: the failure is history.
    '0.73.1/compact-error-then-success': {
      turns: ['success', 'success'],
      final: READY,
      chatContext: {
        degradedErrorType: 'pi_auto_compaction_failed',
        shownBy: /^ Auto-compaction failed: /m,
        cleared: true,
      },
    },
  },
};
