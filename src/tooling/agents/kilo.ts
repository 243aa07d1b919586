import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentBin,
  baseEnv,
  type AgentLaunch,
  type ChatAgent,
  type ChatLaunchOptions,
} from './chat-agent.js';
import { offlineEnv, opencodeConfig, xdgEnv } from './opencode.js';

function prepare(o: ChatLaunchOptions): AgentLaunch {
  const home = join(o.scratch, 'home');
  const xdg = xdgEnv(o.scratch);
  mkdirSync(join(xdg.XDG_CONFIG_HOME!, 'kilo'), { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  // Kilo is an opencode fork and reads the same configuration, from its own file. Its
  // snapshots (a shadow git repository of the work folder, Kilo's undo) are off: on a loaded
  // machine, and with the work folder inside a large checkout, building one takes seconds before
  // the first request and after every reply, and past 10 s Kilo stops the turn to ask whether to
  // disable them (`Do you want to disable Snapshots for this repository?`).
  writeFileSync(
    join(xdg.XDG_CONFIG_HOME!, 'kilo', 'kilo.json'),
    JSON.stringify({ ...opencodeConfig(o.serverUrl), snapshot: false }, null, 2),
  );
  return {
    command: [kiloAgent.bin],
    cwd: o.workDir,
    env: {
      ...baseEnv(home),
      ...xdg,
      ...offlineEnv('KILO'),
      KILO_NO_DAEMON: '1',
      KILO_TELEMETRY_LEVEL: 'off',
      KILO_DISABLE_SESSION_INGEST: '1',
      KILO_DISABLE_PRESENCE: '1',
      // One attempt: a failed request ends the turn in Kilo's error block.
      ...(o.retries === 'capped' ? { KILO_SESSION_RETRY_LIMIT: '1' } : {}),
    },
  };
}

/** Kilo CLI 7.7.7 (`@kilocode/cli`; 7.8.x has no Linux platform package in the registry). */
export const kiloAgent: ChatAgent = {
  tool: 'kilo',
  version: '7.7.7',
  bin: agentBin('kilo', 'kilo'),
  processNames: ['kilo'],
  prepare,
  idle: /ctrl\+p commands/,
  busy: /esc (again to )?interrupt|Permission required/,
  typed: (text) => new RegExp(`┃  ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'], pauseMs: 200 }, { keys: ['Escape'] }],
  exit: [{ text: '/exit', pauseMs: 500 }, { keys: ['Enter'] }],
  permission: {
    toolUse: (file) => ({
      name: 'bash',
      input: { command: `touch ${file}`, description: `Create ${file}` },
    }),
    dialog: /Permission required/,
    approve: [{ keys: ['Enter'] }],
    // After Reject, Kilo asks what to do instead; Enter sends no answer.
    deny: [
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Enter'], pauseMs: 1500 },
      { keys: ['Enter'] },
    ],
    // Allow always opens a confirmation (`△ Always allow`, Confirm selected, Cancel).
    approveAlways: [
      { keys: ['Right'], pauseMs: 200 },
      { keys: ['Enter'], pauseMs: 2500 },
      { keys: ['Enter'] },
    ],
  },
  // KILO_SESSION_RETRY_LIMIT=1 ends the turn in its error block; by default it retries on.
  givesUp: { capped: true, default: true },
  retrySetting: true,
  startupTimeoutMs: 60_000,
};
