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
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  const settings = {
    modelProviders: {
      openai: [
        {
          id: 'fake-model',
          baseUrl: `${o.serverUrl}/v1`,
          envKey: 'FAKE_API_KEY',
          // The client's own retries under each of the CLI's seven attempts: none.
          ...(o.retries === 'capped' ? { generationConfig: { maxRetries: 0 } } : {}),
        },
      ],
    },
    security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: !!o.fresh } },
    model: { name: 'fake-model' },
    // 0.24 reads `enableAutoUpdate` (it migrates the two older keys, but checks for an update
    // before it does).
    general: { disableAutoUpdate: true, disableUpdateNag: true, enableAutoUpdate: false },
    // 0.24's default is `auto`: a model call of its own decides each tool call, no prompt.
    tools: { approvalMode: 'default' },
    // The background memory extraction sends a model request of its own after every turn.
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false, hasSeenNudge: true },
  };
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2));
  return {
    command: [qwenCodeAgent.bin],
    cwd: o.workDir,
    // A fresh set-up asks to trust the folder, and 0.24 relaunches itself once trusted (exit
    // code 42 to its launcher): there it runs as a user starts it, launcher and all.
    env: {
      ...baseEnv(home),
      FAKE_API_KEY: 'x',
      ...(o.fresh ? {} : { QWEN_CODE_NO_RELAUNCH: 'true' }),
    },
  };
}

/** Qwen Code 0.24.4 (`@qwen-code/qwen-code`, a Gemini CLI fork, pure JS). */
export const qwenCodeAgent: ChatAgent = {
  tool: 'qwen_code',
  version: '0.24.4',
  bin: agentBin('qwen_code', 'qwen'),
  processNames: ['qwen'],
  prepare,
  // 0.24 puts an interrupted prompt back into the box: then only its footer's mode line shows.
  idle: /Type your message or @path\/to\/file|\(shift \+ tab to cycle\)$/m,
  // 0.24 offers `Enter to steer` and shows `⏳ 1 queued` in the footer while a turn runs.
  busy: /esc to cancel|Waiting for user confirmation|Enter to steer|\d+ queued/,
  typed: (text) => new RegExp(`>\\s+${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'] }],
  newlineKeys: ['C-j'],
  exit: [{ text: '/quit', pauseMs: 500 }, { keys: ['Enter'] }],
  permission: {
    toolUse: (file) => ({
      name: 'run_shell_command',
      input: { command: `touch ${file}`, description: `Create ${file}` },
    }),
    dialog: /Allow execution of/,
    approve: [{ keys: ['Enter'] }],
    deny: [{ keys: ['Escape'] }],
  },
  // Seven attempts with backoff (about 80 s), each one request with `maxRetries: 0`.
  givesUp: { capped: true, default: true },
  retrySetting: true,
  startupDialogs: [{ text: /Do you trust/, keys: [{ keys: ['Enter'] }] }],
  // 0.24 shows `Initializing...` for 40-50 s on a loaded 2-core machine.
  startupTimeoutMs: 120_000,
};
