import { grokCliAgent } from '../../../src/tooling/agents/grok_cli.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: grokCliAgent.tool,
  bin: grokCliAgent.bin,
  install: 'scripts/install-agent.sh grok_cli',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    grokCliAgent.prepare({ scratch, workDir, serverUrl, retries: 'default' }),
  startupTimeoutMs: grokCliAgent.startupTimeoutMs,
  // A 400 is not retried: "⏺ Sorry, I encountered an error: Grok API error: 400 …" at once.
  failure: {
    plans: Array.from({ length: 3 }, () => ({ error: { status: 400 } })),
    timeoutMs: 60_000,
  },
  permission: grokCliAgent.permission,
});
