// Answering Gemini CLI's permission question live (test/e2e/live/answer-suite.ts): it asks
// before a shell command and is answered by the option's digit; its refusal path cancels the turn.
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { join } from 'node:path';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: 'gemini_cli',
  label: 'Gemini CLI',
  bin: geminiCliAgent.bin,
  protocol: geminiProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    prepareGeminiCli({
      cwd: work,
      home: join(scratch, 'home'),
      baseUrl: serverUrl,
      maxAttempts: 1,
    }),
  shell: (file) => ({
    name: 'run_shell_command',
    input: { command: `touch ${file}`, description: 'Create the marker file' },
  }),
  choices: ['allow_once', 'allow_session', 'deny'],
});
