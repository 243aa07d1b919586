// Answering Kilo's permission question live (test/e2e/live/answer-suite.ts): its selection
// is drawn by colour alone, so the answer reads the highlighted option on a capture with escapes
// and types the arrows from there, then Enter; refused by Escape, it asks what to do instead
// (a second question, answered `deny` by Enter), then draws the command and a footer with no
// outcome, so paneward claims none for that turn.
// Allow always opens Kilo's confirmation (`△ Always allow`, Confirm/Cancel): the answer sees it read
// as the question that confirms `allow_always`, confirms it, and the same command asked again in
// the session runs without a dialog.
import { kiloAgent } from '../../../src/tooling/agents/kilo.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: kiloAgent.tool,
  label: 'Kilo',
  bin: kiloAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: ({ scratch, work, serverUrl }) =>
    kiloAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'default' }),
  shell: (file) => kiloAgent.permission!.toolUse(file),
  // Kilo drew nothing for over two minutes at start on a loaded machine.
  startupTimeoutMs: kiloAgent.startupTimeoutMs + 180_000,
  deniedResult: 'no_claim',
  denyFollowUp: 'deny',
  // The highlight moved on Reject first: Enter alone would refuse.
  moveHighlight: ['Right', 'Right'],
  choices: ['allow_once', 'allow_always', 'deny'],
  allowAlways: { confirmationSubject: 'touch *' },
});
