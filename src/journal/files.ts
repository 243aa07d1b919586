import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  statSync,
} from 'node:fs';
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

/** The error for a journal path that is a symbolic link: the journal never follows one. */
export function linkRefused(path: string, cause?: unknown): PanewardError {
  return new PanewardError(
    'journal_corrupt',
    `${path} is a symbolic link; paneward does not follow links in its journal (put the file or folder itself there, or remove the link)`,
    { cause },
  );
}

/** Throws {@link linkRefused} when `path` is a symbolic link; a missing path is fine. */
export function refuseLink(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (st.isSymbolicLink()) throw linkRefused(path);
}

/**
 * Opens a journal file without following a symbolic link in its place (`O_NOFOLLOW`): a link
 * is refused with an error naming it, so nothing is ever read, chmod-ed or appended through one.
 * Anything else that is not a regular file is refused too.
 */
export function openNoFollow(file: string, flags: number, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(file, flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(file, error);
    throw error;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new PanewardError('journal_corrupt', `${file} is not a regular file; remove it`);
  }
  return fd;
}

/** Tightens an open journal file to 0600 (when this user owns it and it is looser). */
export function privateFd(fd: number): void {
  const st = fstatSync(fd);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) fchmodSync(fd, st.mode & 0o600);
}
