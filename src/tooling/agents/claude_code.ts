import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agentBin } from './chat-agent.js';

/** Where `scripts/install-agent.sh claude_code` puts the pinned CLI. */
export const CLAUDE_CODE_BIN = agentBin('claude_code', 'claude');

/** Facts about the pinned Claude Code build that tests and recordings rely on. */
export const claudeCodeFacts = {
  tool: 'claude_code',
  version: '2.1.332',
  protocol: 'anthropic',
  /** Keys (tmux names) that interrupt a running turn. */
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  /** Approves the highlighted first option ("1. Yes") of a permission prompt. */
  approveKeys: ['Enter'],
  /** Accepts the folder trust dialog, whose preselected option is "No, exit". */
  trustKeys: ['Down', 'Enter'],
  /** Typed into the prompt, then Enter: the CLI's own quit command. */
  quitCommand: '/exit',
  /** Accepts the auto-mode dialog's preselected "Yes, set auto mode as my default permission mode". */
  autoModeKeys: ['Enter'],
  /** A tool call that needs approval in `default` permission mode. */
  permissionToolUse: {
    name: 'Bash',
    input: { command: 'touch paneward-approved.txt', description: 'Create an empty marker file' },
  },
  /** A tool call whose output runs to hundreds of lines. */
  longOutputToolUse: {
    name: 'Bash',
    input: {
      command: 'seq 1 300 > paneward-lines.txt && cat paneward-lines.txt',
      description: 'Write 300 numbered lines to a file and print it',
    },
  },
  /** How long the CLI may take from launch to its idle prompt, generously. */
  startupTimeoutMs: 30_000,
} as const;

export interface ClaudeCodeLaunchOptions {
  /** Scratch HOME (created); never the real one. */
  home: string;
  /** Working folder the CLI runs in (created). */
  cwd: string;
  /** Fake model server base URL, e.g. `http://127.0.0.1:4567`. */
  baseUrl: string;
  apiKey?: string;
  /**
   * Permission mode written to settings; `default` (the default) asks before tools run; `null`
   * writes none, so the CLI's own default (auto mode) applies.
   */
  permissionMode?: 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'auto' | null;
  /** Mark the "make auto mode your default?" dialog as seen (default true); false shows it. */
  autoNudgeSeen?: boolean;
  /** Mark the working folder as trusted (default true); false shows the trust dialog. */
  trustFolder?: boolean;
  /** How many times the CLI retries a failed request before it shows the error. */
  maxRetries?: number;
  bin?: string;
  extraEnv?: Record<string, string>;
}

export interface AgentLaunch {
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * Writes a scratch config (onboarding done, folder trusted, API key approved, no auto-mode
 * nudge) and returns how to launch Claude Code offline against the fake model server.
 */
export function prepareClaudeCode(opts: ClaudeCodeLaunchOptions): AgentLaunch {
  const apiKey = opts.apiKey ?? 'sk-ant-api03-paneward-fake-key-0123456789abcdefghij';
  const home = resolve(opts.home);
  const cwd = resolve(opts.cwd);
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const config = {
    hasCompletedOnboarding: true,
    ...(opts.autoNudgeSeen === false ? {} : { hasSeenAutoDefaultNudge: true }),
    lastOnboardingVersion: claudeCodeFacts.version,
    numStartups: 1,
    theme: 'dark',
    autoUpdates: false,
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: {
      [cwd]: {
        hasTrustDialogAccepted: opts.trustFolder ?? true,
        hasCompletedProjectOnboarding: true,
        allowedTools: [],
      },
    },
  };
  writeFileSync(join(home, '.claude.json'), JSON.stringify(config, null, 2));
  const mode = opts.permissionMode === undefined ? 'default' : opts.permissionMode;
  const settings = mode === null ? {} : { permissions: { defaultMode: mode } };
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    ANTHROPIC_BASE_URL: opts.baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: String(opts.maxRetries ?? 0),
    ...opts.extraEnv,
  };
  return { command: [opts.bin ?? CLAUDE_CODE_BIN], env, cwd };
}
