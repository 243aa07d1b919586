import { geminiCliSessionRecord } from '../../../src/profiles/gemini_cli/session-record.js';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { join } from 'node:path';
import { describeTwoPanes } from './two-panes.js';

describeTwoPanes({
  reader: geminiCliSessionRecord,
  bin: geminiCliAgent.bin,
  processNames: ['gemini'],
  protocol: geminiProtocol,
  launch: ({ scratch, workDir, serverUrl }) =>
    prepareGeminiCli({ cwd: workDir, home: join(scratch, 'home'), baseUrl: serverUrl }),
  ready: /Type your message or @path\/to\/file/,
  settleMs: 1_000,
  startupTimeoutMs: 60_000,
});
