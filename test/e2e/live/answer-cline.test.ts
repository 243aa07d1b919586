// Answering Cline's permission question live (test/e2e/live/answer-suite.ts): started with
// `--auto-approve false` it asks before a shell command and is answered by the key its dialog
// draws, `y` or `n`.
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

const options = (scratch: string, workDir = '', serverUrl = ''): ChatLaunchOptions => ({
  scratch,
  workDir,
  serverUrl,
  retries: 'capped',
});

describeLiveAnswer({
  tool: clineAgent.tool,
  label: 'Cline',
  bin: clineAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: async ({ scratch, work, serverUrl }) => {
    const o = options(scratch, work, serverUrl);
    const launch = clineAgent.prepare(o);
    // `cline auth` writes the provider settings that point Cline at the fake server.
    await clineAgent.setup!(o);
    return launch;
  },
  cleanup: (scratch) => clineAgent.stopDaemons!(options(scratch)),
  shell: (file) => clineAgent.permission!.toolUse(file),
  startupTimeoutMs: clineAgent.startupTimeoutMs + 30_000,
  // Refused, Cline draws `x run_commands(touch …)` and `Error: This tool call was rejected by the
  // user and not executed. …`, and sends that to the model as the tool's result: a second
  // request (which cannot carry the command's output: it never ran), whose reply ends the turn.
  deniedResult: 'told',
  choices: ['allow_once', 'deny'],
});
