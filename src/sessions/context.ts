import { readdir, readFile, readlink } from 'node:fs/promises';
import { matchTree, readProcessTree } from '../observe/process.js';
import { readStatEntry } from '../observe/internal/procfs.js';
import type { SessionContext } from '../profiles/session-record.js';

/** Options for {@link readSessionContext}. */
export interface ContextOptions {
  /** Where /proc is; for tests. */
  procRoot?: string;
  /** Files other panes' observers follow (never this pane's). */
  claimed?: ReadonlySet<string>;
}

/** Clock ticks per second of `/proc/<pid>/stat`'s start time (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * What /proc says of the agent CLI running in a pane, for finding its session record: the
 * outermost process under `panePid` (the pane's own process included) whose name is one of
 * `processNames`, its working folder, environment, start time, and the files it and its
 * descendants hold open. Null when no such process runs (or it left while it was read).
 */
export async function readSessionContext(
  panePid: number,
  processNames: readonly string[],
  options: ContextOptions = {},
): Promise<SessionContext | null> {
  const root = options.procRoot ?? '/proc';
  const tree = await readProcessTree(panePid, { procRoot: root });
  const [pid] = matchTree(tree, processNames);
  const agent = tree.find((p) => p.pid === pid);
  if (pid === undefined || !agent) return null;
  const stat = readStatEntry(root, pid);
  if (!stat || stat.exited) return null;
  const [cwd, environ, bootSeconds] = await Promise.all([
    readlink(`${root}/${pid}/cwd`).catch(() => null),
    readFile(`${root}/${pid}/environ`, 'utf8').catch(() => null),
    bootTime(root),
  ]);
  if (cwd === null || environ === null) return null;
  // The CLI's own children (a worker, a language server) may hold the record open instead.
  const below = subtreeOf(tree, pid);
  const openFiles = (await Promise.all(below.map((p) => openFilesOf(root, p)))).flat();
  return {
    pid,
    cwd,
    env: parseEnviron(environ),
    argv: agent.argv,
    openFiles: [...new Set(openFiles)],
    startedAtMs: Math.round((bootSeconds + stat.start / TICKS_PER_SECOND) * 1000),
    claimed: options.claimed ?? new Set(),
  };
}

/** `NAME=value` entries separated by NULs, as `/proc/<pid>/environ` holds them. */
export function parseEnviron(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The paths (files only: no sockets, pipes or anonymous inodes) a process holds open. */
async function openFilesOf(root: string, pid: number): Promise<string[]> {
  const fds = await readdir(`${root}/${pid}/fd`).catch(() => [] as string[]);
  const targets = await Promise.all(
    fds.map((fd) => readlink(`${root}/${pid}/fd/${fd}`).catch(() => null)),
  );
  return targets.filter((t): t is string => t !== null && t.startsWith('/'));
}

function subtreeOf(tree: readonly { pid: number; ppid: number }[], pid: number): number[] {
  const out = [pid];
  for (const p of tree) if (out.includes(p.ppid) && !out.includes(p.pid)) out.push(p.pid);
  return out;
}

let boot: { root: string; seconds: Promise<number> } | null = null;

/** `btime` of `/proc/stat`: when the machine booted, epoch seconds. */
function bootTime(root: string): Promise<number> {
  if (boot?.root === root) return boot.seconds;
  const seconds = readFile(`${root}/stat`, 'utf8').then((text) => {
    const m = /^btime (\d+)$/m.exec(text);
    return m ? Number(m[1]) : 0;
  });
  boot = { root, seconds };
  return seconds;
}
