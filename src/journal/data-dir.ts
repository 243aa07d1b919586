import { homedir } from 'node:os';
import { join } from 'node:path';

/** The default data directory: `$XDG_STATE_HOME/paneward`, else `~/.local/state/paneward`. */
export function defaultDataDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'paneward');
}
