// Answering Qwen Code's permission question live (test/e2e/live/answer-suite.ts): it asks before
// a shell command and is answered by the option's digit; refused, it returns to its prompt with
// no mark of the refusal, so paneward claims no outcome for that turn.
import { qwenCodeAgent } from '../../../src/tooling/agents/qwen_code.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: qwenCodeAgent.tool,
  label: 'Qwen Code',
  bin: qwenCodeAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    qwenCodeAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'capped' }),
  shell: (file) => qwenCodeAgent.permission!.toolUse(file),
  startupTimeoutMs: qwenCodeAgent.startupTimeoutMs,
  // 0.24 draws the refused tool's line (`- Shell touch …`) and the idle prompt, no cancel mark.
  deniedResult: 'no_claim',
  choices: ['allow_once', 'allow_always', 'allow_always_user', 'deny'],
});
