import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { describeTwoPanes } from './two-panes.js';

describeTwoPanes({
  reader: codexSessionRecord,
  bin: codexAgent.bin,
  processNames: codexAgent.processNames,
  protocol: openaiProtocol,
  // As a returning user starts it: the background server already installed in the home (Codex
  // 0.171 installs it first on a new home, over 400 MB, and takes no prompt meanwhile).
  launch: async ({ scratch, workDir, serverUrl }) =>
    prepareCodex({
      scratchDir: scratch,
      workDir,
      serverUrl,
      daemonPackages: await installedDaemonPackages(),
    }),
  ready: /Ask Codex to do anything/,
  settleMs: 4_000,
  startupTimeoutMs: 60_000,
  stopDaemons: stopCodexDaemons,
});
