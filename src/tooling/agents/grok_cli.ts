import { mkdirSync } from 'node:fs';
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
  mkdirSync(home, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  return {
    command: [grokCliAgent.bin, '--model', 'fake-model'],
    cwd: o.workDir,
    env: { ...baseEnv(home), GROK_API_KEY: 'x', GROK_BASE_URL: `${o.serverUrl}/v1` },
  };
}

/** grok-cli 0.0.34 (`@vibe-kit/grok-cli`, pure JS, Ink). */
export const grokCliAgent: ChatAgent = {
  tool: 'grok_cli',
  version: '0.0.34',
  bin: agentBin('grok_cli', 'grok'),
  processNames: ['grok'],
  prepare,
  idle: /Ask me anything\.\.\./,
  busy: /esc to interrupt|Do you want to proceed with this operation\?/,
  typed: (text) => new RegExp(`❯ ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'] }],
  exit: [{ text: 'exit', pauseMs: 500 }, { keys: ['Enter'] }],
  permission: {
    toolUse: (file) => ({ name: 'bash', input: { command: `touch ${file}` } }),
    dialog: /Do you want to proceed with this operation\?/,
    approve: [{ keys: ['Enter'] }],
    deny: [{ keys: ['Escape'] }],
  },
  // The client's own retries, then "Sorry, I encountered an error: Grok API error: …".
  givesUp: { capped: true, default: true },
  retrySetting: false,
  startupTimeoutMs: 60_000,
};
