import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { awaitExit } from '../../internal/await-exit.js';
import { readdirSync, readFileSync } from 'node:fs';
import {
  agentBin,
  baseEnv,
  stopIfOurs,
  type AgentLaunch,
  type ChatAgent,
  type ChatLaunchOptions,
} from './chat-agent.js';

const home = (o: ChatLaunchOptions) => join(o.scratch, 'home');

function env(o: ChatLaunchOptions): Record<string, string> {
  return {
    ...baseEnv(home(o)),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    CLINE_NO_AUTO_UPDATE: '1',
  };
}

/**
 * Cline shows two announcements once per data folder ("Try ClinePass", then "Introducing Cline
 * Desktop"), each as soon as it starts or later on a loaded machine, over a prompt being typed:
 * an Enter then opens a browser. It skips those whose ids its `settings/cli-notices.json`
 * marks as shown.
 */
function markNoticesShown(o: ChatLaunchOptions): void {
  const settings = join(home(o), '.cline', 'data', 'settings');
  mkdirSync(settings, { recursive: true });
  const shown = { 'cline-cli-cline-pass-intro': true, 'cline-cli-desktop-launch': true };
  writeFileSync(join(settings, 'cli-notices.json'), `${JSON.stringify({ shown }, null, 2)}\n`);
}

function prepare(o: ChatLaunchOptions): AgentLaunch {
  mkdirSync(home(o), { recursive: true });
  markNoticesShown(o);
  mkdirSync(o.workDir, { recursive: true });
  return { command: [clineAgent.bin, '--auto-approve', 'false'], cwd: o.workDir, env: env(o) };
}

/** Cline CLI 3.0.65 (`cline`, a native binary); it keeps a hub daemon after it exits. */
export const clineAgent: ChatAgent = {
  tool: 'cline',
  version: '3.0.65',
  bin: agentBin('cline', 'cline'),
  processNames: ['cline'],
  prepare,
  setup: authCline,
  idle: /Auto-approve all disabled/,
  busy: /esc to cancel|Cline needs permission|any other key to close/,
  typed: (text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'] }],
  exit: [{ keys: ['C-c'], pauseMs: 500 }, { keys: ['C-c'] }],
  permission: {
    toolUse: (file) => ({
      name: 'run_commands',
      input: { commands: [`touch ${file}`] },
    }),
    dialog: /Cline needs permission|Approve tool call\?/,
    approve: [{ keys: ['y'] }],
    deny: [{ keys: ['n'] }],
  },
  // About a minute of retries, then "Error: … (HTTP 500)"; there is no setting for fewer.
  givesUp: { capped: true, default: true },
  retrySetting: false,
  notices: [{ text: /any other key to close/, keys: [{ keys: ['Escape'] }] }],
  async stopDaemons(o) {
    // `cline hub stop` asks the hub to quit; what still runs of ours afterwards is signalled.
    await execa(clineAgent.bin, ['hub', 'stop'], {
      env: env(o),
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    });
    const pids = hubPids(home(o)).filter((pid) => stopIfOurs(pid, home(o)));
    await awaitExit(pids);
    return pids;
  },
  startupTimeoutMs: 60_000,
  // Cline's window for a model it has no facts on was not found in its code; the recordings
  // report against 128,000 tokens, and Cline compacted nothing at 110% of it.
  contextWindow: 128_000,
};

/** Writes Cline's provider settings (`cline auth`), pointing it at the fake server. */
export async function authCline(o: ChatLaunchOptions): Promise<void> {
  mkdirSync(home(o), { recursive: true });
  await execa(
    clineAgent.bin,
    ['auth', '-p', 'openai', '-k', 'x', '-m', 'fake-model', '-b', `${o.serverUrl}/v1`],
    { env: env(o), extendEnv: false, cwd: home(o), timeout: 60_000 },
  );
}

/** Pids of Cline hub daemons started with this HOME. */
function hubPids(homeDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('--cline-hub-daemon')) continue;
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').includes(`HOME=${homeDir}`)) continue;
      pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}
