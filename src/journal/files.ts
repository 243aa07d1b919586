import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { PanewardError } from '../errors.js';

// The data directory's files are its owner's only: they hold screens and prompts.

/**
 * Creates a directory only its owner can enter (0700), and tightens one that exists with a
 * looser mode. One not owned by this user is left as it is.
 */
export function privateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A recursive mkdir says ENOENT for what is EROFS or EACCES: ask for the first missing part.
    let missing = dir;
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing)
      missing = dirname(missing);
    mkdirSync(missing, { mode: 0o700 });
    throw error;
  }
  const st = statSync(dir);
  if (!st.isDirectory()) {
    throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR', path: dir });
  }
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, st.mode & 0o700);
}

/** A journal file readable by its owner only (0600). */
export function privateFile(file: string): void {
  const st = statSync(file);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(file, st.mode & 0o600);
}

/** What to do about an error opening a data directory, in one line naming the path. */
export function startupError(dataDir: string, error: unknown): unknown {
  if (error instanceof PanewardError) return error;
  const e = error as NodeJS.ErrnoException;
  const at = e.path ?? dataDir;
  const hint: Record<string, string> = {
    ENOTDIR: 'is not a directory (or a part of its path is a file)',
    EEXIST: 'exists and is not a directory',
    EISDIR: 'is a directory where a file belongs; remove it',
    EROFS: 'is on a read-only file system',
    EACCES: 'is not writable by this user; fix its permissions',
    EPERM: 'is not writable by this user; fix its permissions',
    ENOSPC: 'is on a full disk; free some space',
    ENOENT: 'does not exist and cannot be created',
    ELOOP: 'is a loop of symbolic links',
  };
  const what = (e.code && hint[e.code]) ?? (e.message || String(error));
  return new PanewardError(
    'journal_failed',
    `data directory ${at === dataDir ? dataDir : `${dataDir}: ${at}`} ${what}${e.code ? ` (${e.code})` : ''}; choose another with --data-dir`,
    { cause: error },
  );
}
