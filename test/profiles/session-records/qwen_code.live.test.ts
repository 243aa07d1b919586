import { qwenCodeSessionRecord } from '../../../src/profiles/qwen_code/session-record.js';
import { qwenCodeAgent } from '../../../src/tooling/agents/qwen_code.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeTwoPanes } from './two-panes.js';

describeTwoPanes({
  reader: qwenCodeSessionRecord,
  bin: qwenCodeAgent.bin,
  processNames: qwenCodeAgent.processNames,
  protocol: chatCompletionsProtocol,
  launch: ({ scratch, workDir, serverUrl }) =>
    qwenCodeAgent.prepare({ scratch, workDir, serverUrl, retries: 'capped' }),
  ready: /Type your message or @path\/to\/file/,
  settleMs: 1_000,
  startupTimeoutMs: 60_000,
});
