import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentBin,
  baseEnv,
  type AgentLaunch,
  type ChatAgent,
  type ChatLaunchOptions,
} from './chat-agent.js';

/** The opencode config (`opencode.json`) that points it at the fake server, offline. */
export function opencodeConfig(serverUrl: string): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${serverUrl}/v1`, apiKey: 'x' },
        models: { 'fake-model': { name: 'fake-model', limit: { context: 128000, output: 4096 } } },
      },
    },
  };
}

/** XDG dirs under the scratch folder; opencode and Kilo keep everything there. */
export function xdgEnv(scratch: string): Record<string, string> {
  return {
    XDG_CONFIG_HOME: join(scratch, 'xdg/config'),
    XDG_DATA_HOME: join(scratch, 'xdg/data'),
    XDG_CACHE_HOME: join(scratch, 'xdg/cache'),
    XDG_STATE_HOME: join(scratch, 'xdg/state'),
  };
}

/** The offline switches opencode reads (Kilo reads the same with `KILO_`). */
export function offlineEnv(prefix: 'OPENCODE' | 'KILO'): Record<string, string> {
  return {
    [`${prefix}_DISABLE_MODELS_FETCH`]: '1',
    [`${prefix}_DISABLE_AUTOUPDATE`]: '1',
    [`${prefix}_DISABLE_SHARE`]: '1',
    [`${prefix}_DISABLE_LSP_DOWNLOAD`]: '1',
    [`${prefix}_DISABLE_DEFAULT_PLUGINS`]: '1',
    [`${prefix}_DISABLE_CLAUDE_CODE`]: '1',
    // Shell commands ask first (by default they run unasked).
    [`${prefix}_PERMISSION`]: JSON.stringify({ bash: 'ask' }),
  };
}

function prepare(o: ChatLaunchOptions): AgentLaunch {
  const home = join(o.scratch, 'home');
  const xdg = xdgEnv(o.scratch);
  mkdirSync(join(xdg.XDG_CONFIG_HOME!, 'opencode'), { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  writeFileSync(
    join(xdg.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
    JSON.stringify(opencodeConfig(o.serverUrl), null, 2),
  );
  return {
    command: [opencodeAgent.bin],
    cwd: o.workDir,
    env: { ...baseEnv(home), ...xdg, ...offlineEnv('OPENCODE') },
  };
}

/** opencode 1.18.33: a native binary (`opencode`) launched through the npm package's `bin`. */
export const opencodeAgent: ChatAgent = {
  tool: 'opencode',
  version: '1.18.33',
  bin: agentBin('opencode', 'opencode'),
  processNames: ['opencode'],
  prepare,
  idle: /ctrl\+p commands/,
  busy: /esc (again to )?interrupt|Permission required/,
  typed: (text) => new RegExp(`┃  ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  submitKeys: ['Enter'],
  // One Escape only arms it ("esc again to interrupt"); the second interrupts.
  interrupt: [{ keys: ['Escape'], pauseMs: 200 }, { keys: ['Escape'] }],
  exit: [{ keys: ['C-c'] }],
  permission: {
    toolUse: (file) => ({
      name: 'bash',
      input: { command: `touch ${file}`, description: `Create ${file}` },
    }),
    dialog: /Permission required/,
    // "Allow once" is selected; Reject is two to the right.
    approve: [{ keys: ['Enter'] }],
    deny: [
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Enter'] },
    ],
    // Allow always opens a confirmation (`△ Always allow`, Confirm selected, Cancel).
    approveAlways: [
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Enter'], pauseMs: 2500 },
      { keys: ['Enter'] },
    ],
  },
  // Five retries with backoff ("[retrying in 4s attempt #3]"), then the provider's message in a
  // block; there is no setting for fewer.
  givesUp: { capped: true, default: true },
  retrySetting: false,
  startupTimeoutMs: 60_000,
};
