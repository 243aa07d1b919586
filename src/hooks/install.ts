import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PanewardError } from '../errors.js';
import { duplicateKey, lineIndent, parseTree, spliceMember, type JsonNode } from './json-splice.js';
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

/** A settings file as read: its text and value, and how it was written (to write it back alike). */
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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      refuseDanglingLink(file);
      return null;
    }
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
  if (text.trim() !== '') refuseDuplicateKeys(file, text);
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
  return {
    text: text.trim() === '' ? '{}\n' : text,
    value: value as Record<string, unknown>,
    indent,
    mode: statSync(file).mode & 0o777,
  };
}

/**
 * A key given twice in the settings' top level or anywhere in `hooks` is refused: `JSON.parse`
 * keeps the last, so the hooks of the first would be lost (and the CLI may read it otherwise).
 */
function refuseDuplicateKeys(file: string, text: string): void {
  const root = parseTree(text);
  if (root.kind !== 'object') return;
  const top = duplicateKey({ ...root, members: root.members.map((m) => ({ ...m, value: LEAF })) });
  const dup =
    top ??
    root.members
      .filter((m) => m.key === 'hooks')
      .map((m) => duplicateKey(m.value, 'hooks'))
      .find((d) => d !== null) ??
    null;
  if (dup) {
    const where = dup.path === '' ? 'the top level' : `\`${dup.path}\``;
    throw new PanewardError(
      'invalid_input',
      `${file}: the key ${JSON.stringify(dup.key)} is given twice in ${where}; one of them would be lost, so nothing was written (keep one)`,
      { details: { file, field: dup.path === '' ? dup.key : `${dup.path}.${dup.key}` } },
    );
  }
}

const LEAF: JsonNode = { kind: 'scalar', start: 0, end: 0 };

/** A symbolic link whose target is missing: where to write is not clear, so it is refused. */
function refuseDanglingLink(file: string): void {
  let link = false;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return;
  }
  if (link) {
    throw new PanewardError(
      'invalid_input',
      `${file}: a symbolic link to ${readlinkSync(file)}, which does not exist; nothing was written`,
      { details: { file } },
    );
  }
}

/**
 * Writes the settings' new text: the file whole or not at all (a temporary file beside it, then
 * a rename). A symbolic link (a dotfiles folder's) is written through: the file it points to is
 * replaced, beside itself, and the link stays.
 */
function writeSettings(file: string, text: string, mode: number | null): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet: created where it is named.
  }
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.paneward-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: mode ?? 0o644 });
  if (mode !== null) chmodSync(tmp, mode);
  renameSync(tmp, target);
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

/*
 * The settings are edited as text, so that uninstalling gives back the very bytes the file had
 * before installing. Install adds, and uninstall takes out, in forms that tell them apart:
 *  - a group in an event that has groups: after the last one, `,` newline indent group;
 *  - a group in an event the user has empty (`"Stop": []`): right after `[`, no space before it
 *    (uninstalling takes out the group alone, and `[]` is back as it was);
 *  - an event the user has not: a member `"Stop": [` newline ... `]`, after the last event, or
 *    right after `{` when `hooks` is empty (again no space before it);
 *  - no `hooks` at all: the member `"hooks"` with the three events, after the last member.
 * So an event (or `hooks`) whose only entry is ours, with space before it, was added by
 * install: uninstall takes it out whole. With no space before it, it was the user's, and stays.
 */

/** The text with [start, end) replaced by `insert`. */
const edit = (text: string, start: number, end: number, insert = '') =>
  text.slice(0, start) + insert + text.slice(end);

interface Entry {
  start: number;
  end: number;
}

const entriesOf = (node: JsonNode): Entry[] =>
  node.kind === 'object'
    ? node.members.map((m) => ({ start: m.keyStart, end: m.value.end }))
    : node.kind === 'array'
      ? node.items
      : [];

/**
 * The text without entry `k` of `container` (an item, or a member): with the separator before
 * it (or after it, when it is the first). The only entry goes alone when nothing stood before it
 * (the container was the user's, empty); otherwise the container was added with it, and
 * `whole()` takes the container out instead.
 */
function removeEntry(text: string, container: JsonNode, k: number, whole: () => string): string {
  const all = entriesOf(container);
  const e = all[k]!;
  if (k > 0) return edit(text, all[k - 1]!.end, e.end);
  if (all.length > 1) return edit(text, e.start, all[1]!.start);
  if (e.start === container.start + 1) return edit(text, e.start, e.end);
  return whole();
}

/**
 * Takes paneward's hooks out of the settings' text, one at a time: a group that holds only ours
 * goes whole, with the event and `hooks` when install added them; our hook in a group of the
 * user's goes alone. Returns the text and how many hooks it took out.
 */
function stripOurs(text: string): { text: string; removed: number } {
  let removed = 0;
  for (;;) {
    const root = parseTree(text);
    if (root.kind !== 'object') return { text, removed };
    const hooksAt = root.members.findIndex((m) => m.key === 'hooks');
    const hooks = root.members[hooksAt]?.value;
    if (!hooks || hooks.kind !== 'object') return { text, removed };
    const next = nextStrip(text, hooks);
    if (next === null) return { text, removed };
    text = next.text;
    removed += next.removed;
  }
}

function nextStrip(text: string, hooks: JsonNode & { kind: 'object' }) {
  const dropHooks = () => spliceMember(text, 'hooks', undefined, 2);
  for (const [ei, event] of hooks.members.entries()) {
    const groups = event.value;
    if (groups.kind !== 'array') continue;
    for (const [gi, group] of groups.items.entries()) {
      if (group.kind !== 'object') continue;
      const list = group.members.find((m) => m.key === 'hooks')?.value;
      if (!list || list.kind !== 'array') continue;
      const ours = list.items.flatMap((h, i) =>
        isOurs(JSON.parse(text.slice(h.start, h.end))) ? [i] : [],
      );
      if (ours.length === 0) continue;
      if (ours.length < list.items.length) {
        return { text: removeEntry(text, list, ours[0]!, () => text), removed: 1 };
      }
      const dropEvent = () => removeEntry(text, hooks, ei, dropHooks);
      return { text: removeEntry(text, groups, gi, dropEvent), removed: ours.length };
    }
  }
  return null;
}

/** Adds paneward's group to each of `events`, in the forms above. */
function addOurs(
  text: string,
  group: unknown,
  events: readonly string[],
  indent: string | number,
): string {
  const step = typeof indent === 'number' ? ' '.repeat(indent) : indent;
  const render = (value: unknown, base: string) =>
    JSON.stringify(value, null, step).split('\n').join(`\n${base}`);
  const root = parseTree(text);
  const hooksMember = root.kind === 'object' ? root.members.find((m) => m.key === 'hooks') : null;
  if (!hooksMember) {
    return spliceMember(text, 'hooks', Object.fromEntries(events.map((e) => [e, [group]])), indent);
  }
  for (const event of events) {
    const hooks = (parseTree(text) as JsonNode & { kind: 'object' }).members.find(
      (m) => m.key === 'hooks',
    )!;
    const obj = hooks.value as JsonNode & { kind: 'object' };
    const inHooks = lineIndent(text, hooks.keyStart) + step;
    const m = obj.members.find((x) => x.key === event);
    if (m && m.value.kind === 'array') {
      const base = lineIndent(text, m.keyStart);
      const last = m.value.items.at(-1);
      text = last
        ? edit(text, last.end, last.end, `,\n${base}${step}${render(group, base + step)}`)
        : edit(text, m.value.start + 1, m.value.start + 1, render(group, base));
      continue;
    }
    const member = `${JSON.stringify(event)}: ${render([group], inHooks)}`;
    const lastMember = obj.members.at(-1);
    text = lastMember
      ? edit(text, lastMember.value.end, lastMember.value.end, `,\n${inHooks}${member}`)
      : edit(text, obj.start + 1, obj.start + 1, member);
  }
  return text;
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
  hooksOf(file, s.value);
  // Ours out first (a reinstall, perhaps with another URL), then in again.
  const stripped = stripOurs(s.text);
  const group = {
    hooks: [{ type: 'command', command: hookCommand(tool, o), timeout: HOOK_TIMEOUT_SECONDS }],
  };
  const text = addOurs(stripped.text, group, CLAUDE_CODE_HOOK_EVENTS, s.indent);
  writeSettings(file, text, s.mode);
  return { tool, file, result: stripped.removed > 0 ? 'updated' : 'installed' };
}

/**
 * Takes out exactly what `installHooks` put in: the file is as it was before, byte for byte
 * (the user's own hooks, and events they had empty, included).
 */
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
  const stripped = stripOurs(s.text);
  if (stripped.removed === 0) return { tool, file, result: 'absent' };
  writeSettings(file, stripped.text, s.mode);
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
