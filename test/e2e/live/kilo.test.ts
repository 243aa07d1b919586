import { kiloAgent } from '../../../src/tooling/agents/kilo.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: kiloAgent.tool,
  bin: kiloAgent.bin,
  install: 'scripts/install-agent.sh kilo',
  protocol: chatCompletionsProtocol,
  // KILO_SESSION_RETRY_LIMIT=1: a failed request ends the turn in Kilo's error block.
  launch: async ({ scratch, workDir, serverUrl }) =>
    kiloAgent.prepare({ scratch, workDir, serverUrl, retries: 'capped' }),
  startupTimeoutMs: kiloAgent.startupTimeoutMs,
  // A 400 is not retried: Kilo shows the provider's message in its error block.
  failure: {
    plans: Array.from({ length: 3 }, () => ({ error: { status: 400 } })),
    timeoutMs: 60_000,
  },
  permission: kiloAgent.permission,
});
