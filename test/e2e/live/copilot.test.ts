import { copilotAgent } from '../../../src/tooling/agents/copilot.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: copilotAgent.tool,
  bin: copilotAgent.bin,
  install: 'scripts/install-agent.sh copilot',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    copilotAgent.prepare({ scratch, workDir, serverUrl, retries: 'default' }),
  startupTimeoutMs: copilotAgent.startupTimeoutMs,
  // Copilot retries five times (the server says retry after 1 s), then shows the error.
  failure: {
    plans: Array.from({ length: 6 }, () => ({ error: { status: 429 } })),
    timeoutMs: 90_000,
  },
  permission: {
    toolUse: copilotAgent.permission!.toolUse,
    dialog: copilotAgent.permission!.dialog,
    approve: copilotAgent.permission!.approve,
  },
});
