import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { packageRoot } from '../../internal/package-root.js';

/** The repository root: agents are installed under `.tmp/agents/<tool>/`. */
export const REPO_ROOT = packageRoot();

/**
 * The environment variable that points the offline set-up of `tool` at another executable of
 * the CLI: `PANEWARD_AGENT_BIN_GROK_CLI=/path/to/grok` (the profile id in capitals). `npm run
 * drift` sets it to run the live suite against a newer release installed elsewhere.
 */
export const agentBinVariable = (tool: string): string =>
  `PANEWARD_AGENT_BIN_${tool.toUpperCase()}`;

/** The executable `tool` was pointed at through {@link agentBinVariable}, or undefined. */
export function agentBinOverride(
  tool: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const name = agentBinVariable(tool);
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!isAbsolute(value)) {
    throw new Error(`${name} must be an absolute path to the CLI's executable, not ${value}`);
  }
  return value;
}

/**
 * Path of an installed CLI's executable: `scripts/install-agent.sh <tool>` puts it there, unless
 * {@link agentBinVariable} names another one.
 */
export const agentBin = (tool: string, bin: string): string =>
  agentBinOverride(tool) ?? resolve(REPO_ROOT, '.tmp/agents', tool, 'node_modules/.bin', bin);

/** How to start one CLI in a pane. */
export interface AgentLaunch {
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

/** What a launch may ask of the CLI's configuration. */
export interface ChatLaunchOptions {
  /** Scratch folder for HOME and XDG dirs (created). */
  scratch: string;
  /** The folder the CLI works in (created). */
  workDir: string;
  /** Fake server base URL without `/v1`. */
  serverUrl: string;
  /**
   * `capped`: the CLI's retry cap set low where it has one, so an error ends the turn soon;
   * `default`: the CLI's own retry settings.
   */
  retries: 'capped' | 'default';
  /** Leave out what a new user has not done yet (folder trust), so start-up dialogs show. */
  fresh?: boolean;
}

/** One key press, or text typed literally, then a pause. */
export type KeyStep = { keys: string[]; pauseMs?: number } | { text: string; pauseMs?: number };

/**
 * Facts about one OpenAI-compatible agent CLI, as the recordings and the live suite drive it.
 * Everything here was checked on the pinned version; the profile's own markers live in
 * `src/profiles/<tool>/`.
 */
export interface ChatAgent {
  /** Profile id. */
  tool: string;
  /** The npm version `scripts/install-agent.sh` pins. */
  version: string;
  bin: string;
  /** Names of the CLI's processes under the pane (for the recorder's probe). */
  processNames: readonly string[];
  /** Writes the scratch config and returns how to start the CLI against the fake server. */
  prepare(o: ChatLaunchOptions): AgentLaunch;
  /** A set-up step that runs a command of the CLI itself, after `prepare`. */
  setup?(o: ChatLaunchOptions): Promise<void>;
  /** An idle screen: the prompt box empty and nothing running (the recorder waits for it). */
  idle: RegExp;
  /** Something runs (the recorder's idle wait rejects a screen showing it). */
  busy: RegExp;
  /** The prompt typed into the box is visible (for `text`). */
  typed(text: string): RegExp;
  submitKeys: readonly string[];
  /** Interrupts a running turn (as the user does it: some CLIs want Escape twice). */
  interrupt: readonly KeyStep[];
  /** A new line in the prompt box without submitting, where the CLI has one. */
  newlineKeys?: readonly string[];
  /** How a user quits the CLI. */
  exit: readonly KeyStep[];
  /** The shell tool call that makes the CLI ask before it runs; null: it never asks. */
  permission: {
    toolUse(file: string): { name: string; input: Record<string, unknown> };
    /** Text of the permission dialog. */
    dialog: RegExp;
    approve: readonly KeyStep[];
    deny: readonly KeyStep[];
    /** Allow always, through every step the CLI asks; absent where it has no such choice. */
    approveAlways?: readonly KeyStep[];
  } | null;
  /**
   * Whether the CLI, failing every request of a turn, ends the turn in an error it shows: with
   * `retries: 'capped'` and with its default retries (false: it retries without end).
   */
  givesUp: { capped: boolean; default: boolean };
  /** The CLI has a setting for its retries (else `capped` and `default` are the same run). */
  retrySetting: boolean;
  /** Start-up dialogs a fresh setup shows, each with the keys that get past it. */
  startupDialogs?: ReadonlyArray<{ text: RegExp; keys: readonly KeyStep[] }>;
  /** Notices drawn over the prompt at every start (a promotion), with the key that closes them. */
  notices?: ReadonlyArray<{ text: RegExp; keys: readonly KeyStep[] }>;
  /**
   * Daemons the CLI leaves behind: stops them by pid and resolves once they have exited; returns
   * the pids signalled.
   */
  stopDaemons?(o: ChatLaunchOptions): Promise<number[]>;
  /** Ready within this long after launch on a loaded machine. */
  startupTimeoutMs: number;
  /**
   * The context window, in input tokens, the CLI assumes for the fake model as `prepare`
   * configures it: the long-conversation recordings report usages against it.
   */
  contextWindow?: number;
}

/** A base environment every CLI gets: no colour surprises, UTF-8, loopback without proxy. */
export function baseEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    NO_PROXY: '127.0.0.1,localhost',
    NO_UPDATE_NOTIFIER: '1',
  };
}

/** Sends SIGTERM to `pid` if its command line contains `marker` (so only our own daemons die). */
export function stopIfOurs(pid: number, marker: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    if (!cmdline.includes(marker) && !environ.includes(marker)) return false;
    process.kill(pid, 'SIGTERM');
    return true;
  } catch {
    return false;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regexp for literal text. */
export const literal = (s: string): RegExp => new RegExp(escapeRe(s));
