import { join } from 'node:path';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { describeLiveAgent } from './live-suite.js';

describeLiveAgent({
  tool: geminiCliAgent.tool,
  bin: geminiCliAgent.bin,
  install: 'scripts/install-agent.sh gemini_cli',
  protocol: geminiProtocol,
  launch: async ({ scratch, workDir, serverUrl }) =>
    prepareGeminiCli({
      cwd: workDir,
      home: join(scratch, 'home'),
      baseUrl: serverUrl,
      // Two attempts, and the errors shown: by default the CLI retries silently for minutes.
      maxAttempts: 2,
      settings: { ui: { errorVerbosity: 'full' } },
    }),
  startupTimeoutMs: 60_000,
  failure: {
    plans: Array.from({ length: 6 }, () => ({ error: { status: 500 } })),
    // After the failed attempts the CLI asks "Keep trying / Stop"; the operator stops.
    dialog: { text: /Keep trying/, keys: [{ keys: ['Down'], pauseMs: 300 }, { keys: ['Enter'] }] },
    timeoutMs: 90_000,
  },
  permission: {
    toolUse: (file) => ({
      name: 'run_shell_command',
      input: { command: `touch ${file}`, description: 'Create the marker file' },
    }),
    dialog: /Allow execution of/,
    approve: [{ keys: [...geminiCliAgent.approveKeys] }],
  },
});
