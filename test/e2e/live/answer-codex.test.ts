// Answering Codex's approval question live (test/e2e/live/answer-suite.ts): it asks before an
// escalated shell command and is answered by the shortcut its dialog draws.
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { describeLiveAnswer } from './answer-suite.js';

describeLiveAnswer({
  tool: 'codex',
  label: 'Codex',
  bin: codexAgent.bin,
  protocol: openaiProtocol,
  prepare: async ({ scratch, work, serverUrl }) =>
    prepareCodex({
      scratchDir: scratch,
      workDir: work,
      serverUrl,
      retries: 0,
      daemonPackages: await installedDaemonPackages(),
    }),
  cleanup: (scratch) => stopCodexDaemons(scratch),
  shell: (file) => ({
    name: codexAgent.shellTool,
    input: {
      cmd: `touch ${file}`,
      ...codexAgent.escalation,
      justification: `Allow creating ${file} outside the sandbox?`,
    },
  }),
  choices: ['allow_once', 'allow_always', 'deny'],
});
