import { piAgent } from '../../../src/tooling/agents/pi.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: piAgent.tool,
  bin: piAgent.bin,
  install: 'scripts/install-agent.sh pi',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    piAgent.prepare({ scratch, workDir, serverUrl, retries: 'capped' }),
  startupTimeoutMs: piAgent.startupTimeoutMs,
  // A 400 is not retried: "Error: …" under the prompt at once.
  failure: {
    plans: Array.from({ length: 3 }, () => ({ error: { status: 400 } })),
    timeoutMs: 60_000,
  },
  // pi runs its tools without asking: there is no permission prompt to report.
  permission: null,
});
