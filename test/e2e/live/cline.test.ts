import { clineAgent } from '../../../src/tooling/agents/cline.js';
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { describeLiveAgent } from './live-suite.js';

const options = (scratch: string, workDir = '', serverUrl = ''): ChatLaunchOptions => ({
  scratch,
  workDir,
  serverUrl,
  retries: 'default',
});

describeLiveAgent({
  tool: clineAgent.tool,
  bin: clineAgent.bin,
  install: 'scripts/install-agent.sh cline',
  protocol: chatCompletionsProtocol,
  launch: async ({ scratch, workDir, serverUrl }) => {
    const o = options(scratch, workDir, serverUrl);
    const launch = clineAgent.prepare(o);
    // `cline auth` writes the provider settings that point Cline at the fake server.
    await clineAgent.setup!(o);
    return launch;
  },
  startupTimeoutMs: clineAgent.startupTimeoutMs,
  // A 400 is not retried: ` * Error: <the provider's message>` at once (a 500: a minute of retries).
  failure: {
    plans: Array.from({ length: 3 }, () => ({ error: { status: 400 } })),
    timeoutMs: 90_000,
  },
  permission: clineAgent.permission,
  // Cline draws a finished reply and an interrupted one alike (its interrupt leaves no mark), so
  // the screen is no evidence of success. Its session record is: a finished reply is a success
  // once the record has it (the suite checks it, and which witness decided); an interrupted
  // turn is never claimed a success (Cline's log makes it `interrupted`: witness-cline.test.ts).
  replyOutcome: 'no_evidence',
  notices: clineAgent.notices,
  stopDaemons: (scratch) => clineAgent.stopDaemons!(options(scratch)),
});
