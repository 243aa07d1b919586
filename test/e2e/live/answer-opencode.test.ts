// Answering opencode's permission question live (test/e2e/live/answer-suite.ts): its selection
// is drawn by colour alone, so the answer reads the highlighted option on a capture with escapes
// and types the arrows from there, then Enter; refused by Escape, it draws the command and a
// footer with no outcome, so paneward claims none for that turn.
// Allow always opens opencode's confirmation (`△ Always allow`, Confirm/Cancel): the answer sees it read
// as the question that confirms `allow_always`, confirms it, and the same command asked again in
// the session runs without a dialog.
import { opencodeAgent } from '../../../src/tooling/agents/opencode.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: opencodeAgent.tool,
  label: 'opencode',
  bin: opencodeAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    opencodeAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'default' }),
  shell: (file) => opencodeAgent.permission!.toolUse(file),
  startupTimeoutMs: opencodeAgent.startupTimeoutMs + 60_000,
  deniedResult: 'no_claim',
  // The highlight moved on Reject first: Enter alone would refuse.
  moveHighlight: ['Right', 'Right'],
  choices: ['allow_once', 'allow_always', 'deny'],
  allowAlways: { confirmationSubject: 'touch *' },
});
