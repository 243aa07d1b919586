import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: codexAgent.tool,
  bin: codexAgent.bin,
  install: 'scripts/install-agent.sh codex',
  protocol: openaiProtocol,
  // As a returning user starts it: the background server already installed in the home.
  launch: async ({ scratch, workDir, serverUrl }) =>
    prepareCodex({
      scratchDir: scratch,
      workDir,
      serverUrl,
      retries: 0,
      daemonPackages: await installedDaemonPackages(),
    }),
  startupTimeoutMs: 60_000,
  // No retries configured: the first 500 is the turn's error.
  failure: { plans: [{ error: { status: 500 } }], timeoutMs: 60_000 },
  permission: {
    toolUse: (file) => ({
      name: codexAgent.shellTool,
      input: {
        cmd: `touch ${file}`,
        ...codexAgent.escalation,
        justification: `Allow creating ${file} outside the sandbox?`,
      },
    }),
    dialog: /Would you like to run the following command\?/,
    approve: [{ keys: [...codexAgent.approveKeys] }],
  },
  stopDaemons: async (scratch) => {
    await stopCodexDaemons(scratch);
  },
});
