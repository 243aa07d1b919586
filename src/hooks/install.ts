import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PanewardError } from '../errors.js';
import { inWords } from '../internal/in-words.js';
import { SHIPPED, type HookMechanism } from '../profiles/index.js';
import { OPENCODE_PLUGIN_MARK } from './opencode-plugin.js';
import {
  CLAUDE_CODE_HOOK_EVENTS,
  claudeSettingsFile,
  HOOK_TIMEOUT_SECONDS,
  hookCommand,
  type HookChange,
  type HookInstallOptions,
  type HookScope,
} from './hook-options.js';
import {
  CLINE_HOOK_EVENTS,
  clineFileIsOurs,
  clineHooksDir,
  fileIsOurs,
  installClineHooks,
  installOpencodePlugin,
  opencodePluginFile,
  uninstallClineHooks,
  uninstallOpencodePlugin,
} from './file-hooks.js';
import {
  addOurs,
  hooksOf,
  isOurs,
  readSettings,
  stripOurs,
  writeSettings,
  type Group,
} from './settings-file.js';

export * from './hook-options.js';
export { CLINE_HOOK_EVENTS, clineHooksDir, opencodePluginFile } from './file-hooks.js';

/**
 * `paneward hooks install|uninstall|status` (docs/hooks.md): writes into an agent CLI's own
 * settings file the smallest hook that posts its events to the local service, and takes out
 * exactly that again. Everything else in the file stays as it was; a file that is not what
 * the CLI reads (not JSON, `hooks` not an object) is refused, naming it, and nothing is written.
 */

/** The CLIs whose profile names a hook mechanism, and the mechanism. */
const HOOKED: ReadonlyArray<{ tool: string; hooks: HookMechanism }> = SHIPPED.flatMap((f) =>
  f.cli.hooks ? [{ tool: f.cli.id, hooks: f.cli.hooks }] : [],
);

function mechanismOf(tool: string): HookMechanism {
  const found = HOOKED.find((h) => h.tool === tool);
  if (!found) {
    throw new PanewardError(
      'invalid_input',
      `argument \`tool\`: paneward installs hooks for ${inWords(
        HOOKED.map((h) => h.tool),
        'and',
      )} only (${JSON.stringify(tool)} has none it can use; docs/hooks.md)`,
    );
  }
  return found.hooks;
}

/** Installs the hook (idempotent: installing twice is installing once). */
export function installHooks(tool: string, o: HookInstallOptions): HookChange {
  const mechanism = mechanismOf(tool);
  if (mechanism === 'cline_scripts') return installClineHooks(o);
  if (mechanism === 'opencode_plugin') return installOpencodePlugin(tool, o);
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
  const mechanism = mechanismOf(tool);
  if (mechanism === 'cline_scripts') return uninstallClineHooks(o);
  if (mechanism === 'opencode_plugin') return uninstallOpencodePlugin(tool, o);
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
  const plugins = HOOKED.filter((h) => h.hooks === 'opencode_plugin').map(({ tool }) => {
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
