import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentBin,
  baseEnv,
  type AgentLaunch,
  type ChatAgent,
  type ChatLaunchOptions,
} from './chat-agent.js';

function prepare(o: ChatLaunchOptions): AgentLaunch {
  const home = join(o.scratch, 'home');
  const copilotHome = join(home, '.copilot');
  mkdirSync(copilotHome, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  writeFileSync(
    join(copilotHome, 'config.json'),
    JSON.stringify(o.fresh ? {} : { trustedFolders: [o.workDir] }, null, 2),
  );
  return {
    command: [copilotAgent.bin, '--disable-client-telemetry', '--no-auto-update'],
    cwd: o.workDir,
    env: {
      ...baseEnv(home),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${o.serverUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'x',
      COPILOT_MODEL: 'fake-model',
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '100000',
      COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: '4096',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_HOME: copilotHome,
    },
  };
}

/** GitHub Copilot CLI 1.0.102 (`@github/copilot`: a node loader that starts a native binary). */
export const copilotAgent: ChatAgent = {
  tool: 'copilot',
  version: '1.0.102',
  bin: agentBin('copilot', 'copilot'),
  processNames: ['copilot'],
  prepare,
  idle: /Interactive · /,
  busy: /esc esc interrupt|Working|Do you want to run this command\?/,
  typed: (text) => new RegExp(`❯ ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'], pauseMs: 200 }, { keys: ['Escape'] }],
  exit: [{ keys: ['C-c'], pauseMs: 500 }, { keys: ['C-c'] }],
  permission: {
    toolUse: (file) => ({
      name: 'bash',
      input: { command: `touch ${file}`, description: `Create ${file}` },
    }),
    dialog: /Do you want to run this command\?/,
    approve: [{ keys: ['Enter'] }],
    deny: [{ keys: ['Escape'] }],
  },
  // "Retrying..." five times, then "✗ Failed to get response from the AI model".
  givesUp: { capped: true, default: true },
  retrySetting: false,
  startupDialogs: [
    { text: /Do you trust the files in this folder\?/, keys: [{ keys: ['Enter'] }] },
  ],
  startupTimeoutMs: 60_000,
  // COPILOT_PROVIDER_MAX_PROMPT_TOKENS above.
  contextWindow: 100_000,
};
