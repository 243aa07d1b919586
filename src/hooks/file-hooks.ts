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
import { PanewardError } from '../errors.js';
import { OPENCODE_PLUGIN_MARK, opencodePlugin } from './opencode-plugin.js';
import {
  hookCommand,
  type HookChange,
  type HookInstallOptions,
  type HookScope,
} from './hook-options.js';

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

export function fileIsOurs(file: string, mark: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes(mark);
  } catch {
    return false;
  }
}

export const clineFileIsOurs = (file: string) => fileIsOurs(file, CLINE_MARK);

/**
 * The plugin paneward writes: `$XDG_CONFIG_HOME/<tool>/plugin/paneward.js`. The CLIs that load
 * opencode-style plugins (opencode, Kilo) name their config folder as paneward names the CLI;
 * `tool` is a shipped profile's id whose profile names this mechanism, never a caller's string.
 */
export function opencodePluginFile(
  o: Pick<HookInstallOptions, 'home' | 'env'>,
  tool = 'opencode',
): string {
  const env = o.env ?? process.env;
  const config = env.XDG_CONFIG_HOME ?? join(o.home ?? env.HOME ?? homedir(), '.config');
  return resolve(config, tool, 'plugin', 'paneward.js');
}

export function installOpencodePlugin(tool: string, o: HookInstallOptions): HookChange {
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

export function uninstallOpencodePlugin(
  tool: string,
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

export function installClineHooks(o: HookInstallOptions): HookChange {
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

export function uninstallClineHooks(
  o: Pick<HookInstallOptions, 'scope' | 'home' | 'env'>,
): HookChange {
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
