import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import { codexAgent, prepareCodex, stopCodexDaemons } from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { describeTwoPanes } from './two-panes.js';

describeTwoPanes({
  reader: codexSessionRecord,
  bin: codexAgent.bin,
  processNames: codexAgent.processNames,
  protocol: openaiProtocol,
  launch: ({ scratch, workDir, serverUrl }) =>
    prepareCodex({ scratchDir: scratch, workDir, serverUrl }),
  ready: /Ask Codex to do anything/,
  settleMs: 4_000,
  startupTimeoutMs: 60_000,
  stopDaemons: stopCodexDaemons,
});
