import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { PanewardError } from '../errors.js';
import { processStartTime, readLock } from './segments.js';

// One writer per data directory: a lock file naming its process (pid and start time).

/** Lock files held by journals open in this process. */
const OPEN_HERE = new Set<string>();

/**
 * Takes the data directory's lock, or throws `data_dir_busy` naming the process that holds it.
 * A lock left by a process that is gone (or whose pid now belongs to another program) is taken
 * over.
 */
export function acquireLock(file: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n${processStartTime(process.pid) ?? ''}\n`, {
        flag: 'wx',
        mode: 0o600,
      });
      OPEN_HERE.add(file);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(file);
      const ours = holder?.pid === process.pid && !OPEN_HERE.has(file);
      if (holder !== null && !ours && holdsLock(holder)) {
        throw new PanewardError(
          'data_dir_busy',
          `data directory ${file.slice(0, -'/lock'.length)} is in use by paneward pid ${holder.pid} (stop it, or choose another with --data-dir)`,
        );
      }
      // Left by a process that is gone (or whose pid now belongs to another program): take it over.
      unlinkSync(file);
    }
  }
}

/** Releases the lock if this process holds it. */
export function releaseLock(file: string): void {
  OPEN_HERE.delete(file);
  if (readLock(file)?.pid === process.pid) rmSync(file, { force: true });
}

/**
 * Whether the process a lock names still holds it: alive, and the same process that wrote it
 * (its start time matches), not another program that was given the pid later. A lock without
 * a start time (or without `/proc`) counts when its pid is alive and, where `/proc` tells, runs
 * node or paneward.
 */
function holdsLock(holder: { pid: number; started: string | null }): boolean {
  if (!alive(holder.pid)) return false;
  const started = processStartTime(holder.pid);
  if (started === null) return true;
  if (holder.started !== null) return holder.started === started;
  try {
    const cmdline = readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8');
    return /paneward|node/.test(cmdline);
  } catch {
    return true;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
