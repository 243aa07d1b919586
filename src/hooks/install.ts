import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PanewardError } from '../errors.js';
import { spliceMember } from './json-splice.js';
import { OPENCODE_PLUGIN_MARK, opencodePlugin } from './opencode-plugin.js';

/**
 * `paneward hooks install|uninstall|status` (docs/hooks.md): writes into an agent CLI's own
 * settings file the smallest hook that posts its events to the local service, and takes out
 * exactly that again. Everything else in the file stays as it was; a file that is not what
 * the CLI reads (not JSON, `hooks` not an object) is refused, naming it, and nothing is written.
 */

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
const HOOK_TIMEOUT_SECONDS = 5;
/** How paneward's own entries are told from the user's: the command runs this script. */
const OURS = /paneward-hook\.js'?\s+claude_code(\s|$)/;

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

/** A settings file as read: its value, and how it was written (to write it back alike). */
interface SettingsText {
  text: string;
  value: Record<string, unknown>;
  indent: string | number;
  mode: number | null;
}

function readSettings(file: string): SettingsText | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new PanewardError('invalid_input', `${file}: cannot read it`, { cause: error });
  }
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new PanewardError(
      'invalid_input',
      `${file}: not valid JSON (${(error as Error).message}); nothing was written`,
      { details: { file } },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PanewardError(
      'invalid_input',
      `${file}: the settings must be a JSON object; nothing was written`,
      { details: { file } },
    );
  }
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
  return {
    text: text.trim() === '' ? '{}\n' : text,
    value: value as Record<string, unknown>,
    indent,
    mode: statSync(file).mode & 0o777,
  };
}

/**
 * Writes the settings with their `hooks` member as it now is, every other byte as it was; the
 * file whole or not at all (a temporary file beside it, then a rename).
 */
function writeSettings(file: string, s: SettingsText): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.paneward-${process.pid}.tmp`;
  const text = spliceMember(s.text, 'hooks', s.value.hooks, s.indent);
  writeFileSync(tmp, text, { mode: s.mode ?? 0o644 });
  if (s.mode !== null) chmodSync(tmp, s.mode);
  renameSync(tmp, file);
}

type Group = { matcher?: unknown; hooks?: unknown };

/** The `hooks` object of the settings, checked; null when there is none. */
function hooksOf(file: string, settings: Record<string, unknown>): Record<string, unknown> | null {
  const hooks = settings.hooks;
  if (hooks === undefined) return null;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    throw new PanewardError(
      'invalid_input',
      `${file}: field \`hooks\` must be an object; nothing was written`,
      { details: { file, field: 'hooks' } },
    );
  }
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      throw new PanewardError(
        'invalid_input',
        `${file}: field \`hooks.${event}\` must be an array; nothing was written`,
        { details: { file, field: `hooks.${event}` } },
      );
    }
  }
  return hooks as Record<string, unknown>;
}

const isOurs = (h: unknown) =>
  typeof h === 'object' &&
  h !== null &&
  typeof (h as { command?: unknown }).command === 'string' &&
  OURS.test((h as { command: string }).command);

/**
 * Takes paneward's entries out of `hooks` (in place): its hook from every group, a group left
 * with no hook, an event left with no group, and `hooks` itself when nothing is left in it.
 * Returns how many hooks it took out.
 */
function removeOurs(
  settings: Record<string, unknown>,
  hooks: Record<string, unknown>,
  dropEmpty: boolean,
): number {
  let removed = 0;
  for (const [event, groups] of Object.entries(hooks)) {
    const kept: unknown[] = [];
    for (const g of groups as Group[]) {
      if (typeof g !== 'object' || g === null || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const left = g.hooks.filter((h) => !isOurs(h));
      removed += g.hooks.length - left.length;
      if (left.length === g.hooks.length) kept.push(g);
      else if (left.length > 0) kept.push({ ...g, hooks: left });
    }
    // Reinstalling keeps each event where it was, so installing twice is installing once.
    if (kept.length === 0 && dropEmpty) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length === 0 && dropEmpty) delete settings.hooks;
  return removed;
}

export interface HookChange {
  tool: string;
  file: string;
  /** What changed: `installed`, `updated` (it was there, now as asked), `removed`, `absent`. */
  result: 'installed' | 'updated' | 'removed' | 'absent';
}

function checkTool(tool: string): void {
  if (!['claude_code', 'cline', 'opencode', 'kilo'].includes(tool)) {
    throw new PanewardError(
      'invalid_input',
      `argument \`tool\`: paneward installs hooks for claude_code, cline, opencode and kilo only (${JSON.stringify(tool)} has none it can use; docs/hooks.md)`,
    );
  }
}

/** Installs the hook (idempotent: installing twice is installing once). */
export function installHooks(tool: string, o: HookInstallOptions): HookChange {
  checkTool(tool);
  if (tool === 'cline') return installClineHooks(o);
  if (tool === 'opencode' || tool === 'kilo') return installOpencodePlugin(tool, o);
  const file = claudeSettingsFile(o);
  const s = readSettings(file) ?? { text: '{}\n', value: {}, indent: 2, mode: null };
  const existing = hooksOf(file, s.value);
  const had = existing ? removeOurs(s.value, existing, false) : 0;
  const hooks = (s.value.hooks ?? {}) as Record<string, unknown[]>;
  const command = hookCommand(tool, o);
  for (const event of CLAUDE_CODE_HOOK_EVENTS) {
    hooks[event] = [
      ...(hooks[event] ?? []),
      { hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] },
    ];
  }
  s.value.hooks = hooks;
  writeSettings(file, s);
  return { tool, file, result: had > 0 ? 'updated' : 'installed' };
}

/** Takes out exactly what `installHooks` put in; the user's own hooks stay. */
export function uninstallHooks(
  tool: string,
  o: Pick<HookInstallOptions, 'scope' | 'home' | 'cwd' | 'env'>,
): HookChange {
  checkTool(tool);
  if (tool === 'cline') return uninstallClineHooks(o);
  if (tool === 'opencode' || tool === 'kilo') return uninstallOpencodePlugin(tool, o);
  const file = claudeSettingsFile(o);
  const s = readSettings(file);
  const hooks = s ? hooksOf(file, s.value) : null;
  if (!s || !hooks) return { tool, file, result: 'absent' };
  const removed = removeOurs(s.value, hooks, true);
  if (removed === 0) return { tool, file, result: 'absent' };
  writeSettings(file, s);
  return { tool, file, result: 'removed' };
}

export interface HookStatus {
  tool: string;
  scope: HookScope;
  file: string;
  /** The events paneward's hook is installed on in that file. */
  events: string[];
  /** The service URL the installed hook posts to. */
  url: string | null;
}

/** Where paneward's hook is installed, per scope. */
export function hookStatus(o: Pick<HookInstallOptions, 'home' | 'cwd' | 'env'>): HookStatus[] {
  const claude = (['user', 'project', 'local'] as const).map((scope) => {
    const file = claudeSettingsFile({ ...o, scope });
    const s = readSettings(file);
    const hooks = s ? hooksOf(file, s.value) : null;
    const events: string[] = [];
    let url: string | null = null;
    for (const [event, groups] of Object.entries(hooks ?? {})) {
      for (const g of groups as Group[]) {
        const ours = Array.isArray(g?.hooks) ? g.hooks.find(isOurs) : undefined;
        if (!ours) continue;
        if (!events.includes(event)) events.push(event);
        url ??= /--url '([^']*)'/.exec((ours as { command: string }).command)?.[1] ?? null;
      }
    }
    return { tool: 'claude_code', scope, file, events, url };
  });
  const dir = clineHooksDir(o);
  const cline = CLINE_HOOK_EVENTS.filter((e) => clineFileIsOurs(join(dir, `${e}.sh`)));
  const first = cline[0] ? readFileSync(join(dir, `${cline[0]}.sh`), 'utf8') : '';
  const plugins = (['opencode', 'kilo'] as const).map((tool) => {
    const plugin = opencodePluginFile(o, tool);
    const text = fileIsOurs(plugin, OPENCODE_PLUGIN_MARK) ? readFileSync(plugin, 'utf8') : '';
    return {
      tool,
      scope: 'user' as const,
      file: plugin,
      events: text ? ['session.status', 'session.error', 'session.idle'] : [],
      url: /const URL_ = "([^"]*)\/v1\/hooks\//.exec(text)?.[1] ?? null,
    };
  });
  return [
    ...claude,
    ...plugins,
    {
      tool: 'cline',
      scope: 'user',
      file: dir,
      events: cline,
      url: /--url '([^']*)'/.exec(first)?.[1] ?? null,
    },
  ];
}

/**
 * Cline runs the executable files named after its events in its hooks folder
 * (`$CLINE_DIR/hooks`, else `~/.cline/hooks`): one small script per event, each marked as
 * paneward's.
 */
export const CLINE_HOOK_EVENTS = ['TaskStart', 'TaskComplete', 'TaskError', 'TaskCancel'] as const;
const CLINE_MARK = '# paneward hook: `paneward hooks uninstall cline` removes this file';

export function clineHooksDir(o: Pick<HookInstallOptions, 'home' | 'env'>): string {
  const env = o.env ?? process.env;
  return resolve(env.CLINE_DIR ?? join(o.home ?? env.HOME ?? homedir(), '.cline'), 'hooks');
}

function fileIsOurs(file: string, mark: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes(mark);
  } catch {
    return false;
  }
}

const clineFileIsOurs = (file: string) => fileIsOurs(file, CLINE_MARK);

/** The plugin paneward writes: `$XDG_CONFIG_HOME/<opencode|kilo>/plugin/paneward.js`. */
export function opencodePluginFile(
  o: Pick<HookInstallOptions, 'home' | 'env'>,
  tool: 'opencode' | 'kilo' = 'opencode',
): string {
  const env = o.env ?? process.env;
  const config = env.XDG_CONFIG_HOME ?? join(o.home ?? env.HOME ?? homedir(), '.config');
  return resolve(config, tool, 'plugin', 'paneward.js');
}

function installOpencodePlugin(tool: 'opencode' | 'kilo', o: HookInstallOptions): HookChange {
  if (o.scope !== 'user') {
    throw new PanewardError(
      'invalid_input',
      `option \`scope\`: the ${tool} plugin is installed for the user only`,
    );
  }
  const file = opencodePluginFile(o, tool);
  let exists = true;
  try {
    statSync(file);
  } catch {
    exists = false;
  }
  if (exists && !fileIsOurs(file, OPENCODE_PLUGIN_MARK)) {
    throw new PanewardError(
      'invalid_input',
      `${file}: a plugin of the user's is there; nothing was written`,
      { details: { file } },
    );
  }
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.paneward-${process.pid}.tmp`;
  writeFileSync(
    tmp,
    opencodePlugin({
      url: o.url,
      tool,
      ...(o.tokenFile ? { tokenFile: resolve(o.tokenFile) } : {}),
    }),
  );
  renameSync(tmp, file);
  return { tool, file, result: exists ? 'updated' : 'installed' };
}

function uninstallOpencodePlugin(
  tool: 'opencode' | 'kilo',
  o: Pick<HookInstallOptions, 'home' | 'env'>,
): HookChange {
  const file = opencodePluginFile(o, tool);
  if (!fileIsOurs(file, OPENCODE_PLUGIN_MARK)) return { tool, file, result: 'absent' };
  unlinkSync(file);
  return { tool, file, result: 'removed' };
}

function clineUserOnly(scope: HookScope): void {
  if (scope !== 'user') {
    throw new PanewardError(
      'invalid_input',
      'option `scope`: Cline hooks are installed for the user only (`~/.cline/hooks`)',
    );
  }
}

function installClineHooks(o: HookInstallOptions): HookChange {
  clineUserOnly(o.scope);
  const dir = clineHooksDir(o);
  const files = CLINE_HOOK_EVENTS.map((e) => join(dir, `${e}.sh`));
  // A file of the user's with that name is never overwritten: refused before anything is written.
  for (const file of files) {
    try {
      statSync(file);
    } catch {
      continue;
    }
    if (!clineFileIsOurs(file)) {
      throw new PanewardError(
        'invalid_input',
        `${file}: a hook of the user's is there; nothing was written`,
        { details: { file } },
      );
    }
  }
  const had = files.some(clineFileIsOurs);
  mkdirSync(dir, { recursive: true });
  const text = `#!/bin/sh\n${CLINE_MARK}\nexec ${hookCommand('cline', o)}\n`;
  for (const file of files) {
    const tmp = `${file}.paneward-${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o755 });
    chmodSync(tmp, 0o755);
    renameSync(tmp, file);
  }
  return { tool: 'cline', file: dir, result: had ? 'updated' : 'installed' };
}

function uninstallClineHooks(o: Pick<HookInstallOptions, 'scope' | 'home' | 'env'>): HookChange {
  clineUserOnly(o.scope);
  const dir = clineHooksDir(o);
  let removed = 0;
  for (const e of CLINE_HOOK_EVENTS) {
    const file = join(dir, `${e}.sh`);
    if (!clineFileIsOurs(file)) continue;
    unlinkSync(file);
    removed += 1;
  }
  return { tool: 'cline', file: dir, result: removed > 0 ? 'removed' : 'absent' };
}
