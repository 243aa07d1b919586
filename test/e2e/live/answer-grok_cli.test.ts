// Answering grok-cli's permission question live (test/e2e/live/answer-suite.ts): its cursor is
// drawn by colour alone, so allowing reads the highlighted option on a capture with escapes and
// types the arrows from there, then Enter; the refusal is Escape wherever the cursor stands.
// Refused, it tells the model and the model's reply ends the turn.
import { grokCliAgent } from '../../../src/tooling/agents/grok_cli.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: grokCliAgent.tool,
  label: 'grok-cli',
  bin: grokCliAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    grokCliAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'default' }),
  shell: (file) => grokCliAgent.permission!.toolUse(file),
  startupTimeoutMs: grokCliAgent.startupTimeoutMs + 30_000,
  // `⎿ Operation cancelled by user (pressed Escape)`, then a request that says so.
  deniedResult: 'told',
  // The highlight moved on No first: Enter alone would refuse.
  moveHighlight: ['Down', 'Down'],
  choices: ['allow_once', 'allow_always', 'deny'],
});
