import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PanewardError } from '../errors.js';

/** Where the settings file is: the user's, the project's (shared), or the project's local one. */
export type HookScope = 'user' | 'project' | 'local';

export interface HookInstallOptions {
  /** The service the hook posts to, written into the hook. */
  url: string;
  /** A file the hook reads the bearer token from each time it runs (never the token itself). */
  tokenFile?: string;
  scope: HookScope;
  /** The user's home (default: `HOME`); the project folder for `project`/`local` (default: cwd). */
  home?: string;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** The node binary and hook script the command runs (default: this node, the shipped script). */
  node?: string;
  script?: string;
}

/** The shipped hook script (`bin/paneward-hook.js`), from the sources or the build alike. */
export function hookScriptPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  // src/hooks → root, or dist/src/hooks → root.
  for (let i = 0; i < 4; i += 1) {
    dir = dirname(dir);
    try {
      statSync(join(dir, 'bin', 'paneward-hook.js'));
      return join(dir, 'bin', 'paneward-hook.js');
    } catch {
      // look one folder up
    }
  }
  throw new PanewardError('internal', 'the hook script bin/paneward-hook.js is missing');
}

/** The Claude Code events the hook is installed on: what tells a turn's start and its end. */
export const CLAUDE_CODE_HOOK_EVENTS = ['UserPromptSubmit', 'Stop', 'StopFailure'] as const;
/** Seconds Claude Code gives the hook (it gives up on its own within 2 s). */
export const HOOK_TIMEOUT_SECONDS = 5;
/** How paneward's own entries are told from the user's: the command runs this script. */
export const OURS = /paneward-hook\.js'?\s+claude_code(\s|$)/;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The settings file of a scope. */
export function claudeSettingsFile(
  o: Pick<HookInstallOptions, 'scope' | 'home' | 'cwd' | 'env'>,
): string {
  const env = o.env ?? process.env;
  if (o.scope === 'user') {
    const config = env.CLAUDE_CONFIG_DIR ?? join(o.home ?? env.HOME ?? homedir(), '.claude');
    return resolve(config, 'settings.json');
  }
  const file = o.scope === 'project' ? 'settings.json' : 'settings.local.json';
  return resolve(o.cwd ?? process.cwd(), '.claude', file);
}

/** The command the hook runs. */
export function hookCommand(tool: string, o: HookInstallOptions): string {
  const parts = [
    quote(o.node ?? process.execPath),
    quote(o.script ?? hookScriptPath()),
    tool,
    '--url',
    quote(o.url),
  ];
  if (o.tokenFile) parts.push('--token-file', quote(resolve(o.tokenFile)));
  return parts.join(' ');
}

export interface HookChange {
  tool: string;
  file: string;
  /** What changed: `installed`, `updated` (it was there, now as asked), `removed`, `absent`. */
  result: 'installed' | 'updated' | 'removed' | 'absent';
}
