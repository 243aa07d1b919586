// Answering GitHub Copilot CLI's permission question live (test/e2e/live/answer-suite.ts): it
// asks before a shell command and is answered with the arrows from its cursor, then Enter.
import { copilotAgent } from '../../../src/tooling/agents/copilot.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: copilotAgent.tool,
  label: 'Copilot CLI',
  bin: copilotAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    copilotAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'default' }),
  shell: (file) => copilotAgent.permission!.toolUse(file),
  startupTimeoutMs: copilotAgent.startupTimeoutMs + 30_000,
  choices: ['allow_once', 'allow_always', 'deny'],
});
