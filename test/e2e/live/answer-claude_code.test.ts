// Answering Claude Code's permission question live (test/e2e/live/answer-suite.ts): it asks
// before a shell command and is answered by the option's digit, once its dialog has stood for
// the profile's settle time (a digit that comes at once only moves its cursor).
import { join } from 'node:path';
import {
  CLAUDE_CODE_BIN,
  claudeCodeFacts,
  prepareClaudeCode,
} from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: 'claude_code',
  label: 'Claude Code',
  bin: CLAUDE_CODE_BIN,
  protocol: anthropicProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    prepareClaudeCode({
      home: join(scratch, 'home'),
      cwd: work,
      baseUrl: serverUrl,
      permissionMode: 'default',
      maxRetries: 0,
    }),
  shell: (file) => ({
    name: 'Bash',
    input: { command: `touch ${file}`, description: 'Create an empty marker file' },
  }),
  choices: ['allow_once', 'allow_always', 'switch_to_auto_mode', 'deny'],
  startupTimeoutMs: claudeCodeFacts.startupTimeoutMs + 30_000,
});
