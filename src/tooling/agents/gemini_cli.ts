import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agentBin } from './chat-agent.js';

/** Facts about Gemini CLI that the end-to-end tests and recordings rely on. */
export const geminiCliAgent = {
  tool: 'gemini_cli',
  version: '0.61.0',
  /** Where `scripts/install-agent.sh gemini_cli` puts the executable (see `agentBin`). */
  bin: agentBin('gemini_cli', 'gemini'),
  /** tmux key that interrupts a running turn ("esc to cancel"). */
  interruptKey: 'Escape',
  /** tmux key that submits the prompt. */
  submitKey: 'Enter',
  /** Approves a tool permission prompt: the first option, "Allow once", is preselected. */
  approveKeys: ['Enter'],
  /** The CLI's own quit command. */
  quitCommand: '/quit',
  /** The model the CLI is pinned to, so start-up needs no routing call. */
  model: 'gemini-2.5-flash',
} as const;

export interface GeminiLaunchOptions {
  /** Directory the CLI works in (marked trusted unless `trusted` is false). */
  cwd: string;
  /** Scratch HOME (created; `~/.gemini` is written inside). */
  home: string;
  /** Fake model server base URL, e.g. `http://127.0.0.1:4567`. */
  baseUrl: string;
  apiKey?: string;
  /**
   * Attempts per model request before an error is shown (`general.maxAttempts`, 1..10).
   * The CLI's default (10, with 5 s–30 s backoff) retries 429/5xx for minutes; `null` leaves
   * the key out so that default applies.
   */
  maxAttempts?: number | null;
  /** Mark `cwd` trusted in `~/.gemini/trustedFolders.json` (default true); false shows the trust dialog. */
  trusted?: boolean;
  /** Preselect API-key auth in settings (default true); false shows the auth dialog at start-up. */
  selectAuth?: boolean;
  /** Extra settings merged over the defaults (top-level keys replace). */
  settings?: Record<string, unknown>;
  /**
   * Let the CLI run as launcher plus child (default false: one process). Trusting a folder at
   * start-up restarts the CLI through its launcher; without one it just exits.
   */
  relaunch?: boolean;
}

export interface AgentLaunch {
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The `~/.gemini/settings.json` that runs the CLI offline against the fake model. */
export function geminiSettings(
  opts: Pick<GeminiLaunchOptions, 'maxAttempts' | 'settings' | 'selectAuth'>,
): Record<string, unknown> {
  return {
    security: {
      ...(opts.selectAuth === false ? {} : { auth: { selectedType: 'gemini-api-key' } }),
      folderTrust: { enabled: true },
    },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      ...(opts.maxAttempts === null ? {} : { maxAttempts: opts.maxAttempts ?? 10 }),
      sessionRetention: { enabled: false },
    },
    model: { name: geminiCliAgent.model },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false, hasSeenNudge: true },
    ...opts.settings,
  };
}

/** Writes a scratch home for Gemini CLI and returns how to launch it offline. */
export function prepareGeminiCli(opts: GeminiLaunchOptions): AgentLaunch {
  const cwd = resolve(opts.cwd);
  const home = resolve(opts.home);
  const dotDir = join(home, '.gemini');
  mkdirSync(dotDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(dotDir, 'settings.json'), JSON.stringify(geminiSettings(opts), null, 2));
  writeFileSync(
    join(dotDir, 'trustedFolders.json'),
    JSON.stringify(opts.trusted === false ? {} : { [cwd]: 'TRUST_FOLDER' }, null, 2),
  );
  return {
    command: [geminiCliAgent.bin],
    cwd,
    env: {
      HOME: home,
      GEMINI_API_KEY: opts.apiKey ?? 'fake-gemini-key',
      GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
      // One process instead of a launcher plus child: the pane's PID is the CLI itself.
      ...(opts.relaunch ? {} : { GEMINI_CLI_NO_RELAUNCH: 'true' }),
      GEMINI_TELEMETRY_ENABLED: 'false',
      NO_BROWSER: 'true',
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
    },
  };
}
