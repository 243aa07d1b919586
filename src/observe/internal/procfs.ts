import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PanewardError } from '../../errors.js';

/** One process as /proc shows it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The kernel's short name (`/proc/<pid>/comm`, at most 15 characters). */
  comm: string;
}

// Stat files read between two turns of the event loop during a full scan: about 1 ms of work.
const SCAN_CHUNK = 100;

/**
 * Reads pid, parent pid and name of every process under `root`. Each file is read synchronously
 * (about ten times faster than one promise per process, and `stat` does not wait on the
 * process's memory map the way `cmdline` can), but the loop yields between chunks so that a
 * large table does not hold the event loop for the whole scan.
 */
export async function scanProcesses(root: string): Promise<Map<number, ProcessEntry>> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (cause) {
    throw new PanewardError('internal', `cannot list ${root}`, { cause });
  }
  const table = new Map<number, ProcessEntry>();
  let sinceYield = 0;
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    if (++sinceYield > SCAN_CHUNK) {
      sinceYield = 0;
      await nextTurn();
    }
    const stat = readOptionalSync(`${root}/${n}/stat`);
    const entry = stat === null ? null : parseStat(stat);
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/**
 * `rootPid` and its descendants, parents before children, found through the kernel's
 * `/proc/<pid>/task/<tid>/children` lists (only the subtree is read). Empty when the root does
 * not exist; null when the kernel does not provide the lists (built without
 * CONFIG_PROC_CHILDREN), or a process left while it was read: the caller then scans everything.
 * Reads synchronously, like the full scan (a pane's tree is a few dozen small files), and
 * yields to the event loop between generations.
 */
export async function walkSubtree(root: string, rootPid: number): Promise<ProcessEntry[] | null> {
  const out: ProcessEntry[] = [];
  const seen = new Set<number>();
  let level: Array<{ pid: number; parent: number | null }> = [{ pid: rootPid, parent: null }];
  while (level.length > 0) {
    if (out.length > 0) await nextTurn();
    const entries = level.map(({ pid }) => readStat(root, pid));
    const present: ProcessEntry[] = [];
    entries.forEach((entry, i) => {
      const parent = level[i]?.parent ?? null;
      // A pid reused between the two reads belongs to some other process: leave it out.
      if (!entry || seen.has(entry.pid) || (parent !== null && entry.ppid !== parent)) return;
      seen.add(entry.pid);
      present.push(entry);
    });
    if (out.length === 0 && present.length === 0) return [];
    const children = present.map((e) => readChildren(root, e.pid));
    if (children.some((c) => c === null)) return null;
    out.push(...present);
    level = present.flatMap((e, i) =>
      (children[i] ?? []).filter((pid) => !seen.has(pid)).map((pid) => ({ pid, parent: e.pid })),
    );
  }
  return out;
}

/** The children of every thread of `pid`; null when no thread's list could be read. */
function readChildren(root: string, pid: number): number[] | null {
  let tids: string[];
  try {
    tids = readdirSync(`${root}/${pid}/task`);
  } catch (error) {
    absentOrThrow(error, `${root}/${pid}/task`);
    return null;
  }
  const lists = tids.map((tid) => readOptionalSync(`${root}/${pid}/task/${tid}/children`));
  if (lists.every((l) => l === null)) return null;
  const pids = lists
    .flatMap((l) => (l ?? '').split(' '))
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  return [...new Set(pids)].sort((a, b) => a - b);
}

function readStat(root: string, pid: number): ProcessEntry | null {
  const stat = readOptionalSync(`${root}/${pid}/stat`);
  return stat === null ? null : parseStat(stat);
}

/** A process's stat with its start time (clock ticks after boot; 0 when not given). */
export interface StatEntry extends ProcessEntry {
  /** Tells a reused pid from the process that had it before. */
  start: number;
  /** A zombie (`Z`) or dead (`X`) process has exited: it is only waiting to be reaped. */
  exited: boolean;
}

/** Reads `/proc/<pid>/stat` synchronously; null when the process is gone or unreadable. */
export function readStatEntry(root: string, pid: number): StatEntry | null {
  const stat = readOptionalSync(`${root}/${pid}/stat`);
  if (stat === null) return null;
  const entry = parseStat(stat);
  if (!entry) return null;
  // After the name: state first, starttime (field 22) twentieth.
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(after[19]);
  const state = after[0] ?? '';
  return {
    ...entry,
    start: Number.isFinite(start) ? start : 0,
    exited: state === 'Z' || state === 'X',
  };
}

/** The numeric entries of `root` (one per process); rejects with `internal` if unlistable. */
export async function listPids(root: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (cause) {
    throw new PanewardError('internal', `cannot list ${root}`, { cause });
  }
  const pids: number[] = [];
  for (const n of names) {
    const c = n.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39 && /^\d+$/.test(n)) pids.push(Number(n));
  }
  return pids;
}

function parseStat(stat: string): ProcessEntry | null {
  // The name sits in parentheses and may itself contain spaces and parentheses.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(stat.slice(0, open).trim());
  const rest = stat.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return null;
  return { pid, ppid, comm: stat.slice(open + 1, close) };
}

/**
 * The file's text, or null when it (or its process) is gone or not readable by permission:
 * processes come and go while we read, and a vanished one is simply absent.
 */
export async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    return absentOrThrow(error, path);
  }
}

function readOptionalSync(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return absentOrThrow(error, path);
  }
}

function absentOrThrow(error: unknown, path: string): null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES' || code === 'EPERM') return null;
  throw new PanewardError('internal', `cannot read ${path}`, { cause: error });
}
