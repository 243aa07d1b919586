import { opencodeAgent } from '../../../src/tooling/agents/opencode.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: opencodeAgent.tool,
  bin: opencodeAgent.bin,
  install: 'scripts/install-agent.sh opencode',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    opencodeAgent.prepare({ scratch, workDir, serverUrl, retries: 'default' }),
  startupTimeoutMs: opencodeAgent.startupTimeoutMs,
  // opencode tries a 429 six times (the server says retry after 1 s), then shows the error.
  failure: {
    plans: Array.from({ length: 6 }, () => ({ error: { status: 429 } })),
    timeoutMs: 90_000,
  },
  permission: {
    toolUse: opencodeAgent.permission!.toolUse,
    dialog: opencodeAgent.permission!.dialog,
    approve: opencodeAgent.permission!.approve,
  },
});
