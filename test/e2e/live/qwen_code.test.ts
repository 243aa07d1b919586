import { qwenCodeAgent } from '../../../src/tooling/agents/qwen_code.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: qwenCodeAgent.tool,
  bin: qwenCodeAgent.bin,
  install: 'scripts/install-agent.sh qwen_code',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    qwenCodeAgent.prepare({ scratch, workDir, serverUrl, retries: 'capped' }),
  startupTimeoutMs: qwenCodeAgent.startupTimeoutMs,
  // A 400 is not retried: `✕ [API Error: 400 …]` at once (a 500 takes about 80 s of retries).
  failure: {
    plans: Array.from({ length: 3 }, () => ({ error: { status: 400 } })),
    timeoutMs: 60_000,
  },
  permission: qwenCodeAgent.permission,
});
