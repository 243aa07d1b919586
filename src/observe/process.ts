import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { PanewardError } from '../errors.js';

/** One process as /proc shows it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The kernel's short name (`/proc/<pid>/comm`, at most 15 characters). */
  comm: string;
}

/** A snapshot of the process table: pid → entry. */
export type ProcessTable = ReadonlyMap<number, ProcessEntry>;

/** Result of looking for agent processes under one pane. */
export interface ProcessMatch {
  /** Pids (the pane's own process and its descendants) whose name matched, in tree order. */
  pids: number[];
  /** How many processes the tree held, the root included. */
  inspected: number;
}

/** Options for the /proc readers; `procRoot` exists for tests. */
export interface ProcOptions {
  procRoot?: string;
}

// Programs that run a script named by their first non-option argument.
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx']);
const STRIPPED_EXTENSIONS = /\.(?:js|mjs|cjs|exe)$/;

/** Reads pid, parent pid and name of every process (Linux /proc). */
export async function readProcessTable(options: ProcOptions = {}): Promise<ProcessTable> {
  const root = options.procRoot ?? '/proc';
  if (process.platform !== 'linux' && options.procRoot === undefined) {
    throw new PanewardError(
      'internal',
      `process inspection needs /proc (platform ${process.platform})`,
    );
  }
  let names: string[];
  try {
    names = await readdir(root);
  } catch (cause) {
    throw new PanewardError('internal', `cannot list ${root}`, { cause });
  }
  const table = new Map<number, ProcessEntry>();
  // Read synchronously: about ten times faster than one promise per process, and `stat`
  // does not wait on the process's memory map the way `cmdline` can.
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const stat = readOptionalSync(`${root}/${n}/stat`);
    const entry = stat === null ? null : parseStat(stat);
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/** `rootPid` and all its descendants present in the table, parents before children. */
export function descendantsOf(table: ProcessTable, rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of table.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  if (!table.has(rootPid)) return [];
  const out: number[] = [];
  const queue = [rootPid];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Whether a process is one of `processNames`: by kernel name, by the basename of argv[0], or,
 * for script runners such as node, by the basename of the script (`node …/bin/codex`).
 * `.js`, `.mjs`, `.cjs` and `.exe` endings are ignored (`claude.exe`, `gemini.js`).
 */
export function matchesProcessName(
  comm: string,
  argv: readonly string[],
  processNames: readonly string[],
): boolean {
  const wanted = new Set(processNames);
  if (wanted.size === 0) return false;
  const candidates = [comm];
  const first = argv[0];
  if (first !== undefined) {
    const program = programName(first);
    candidates.push(program);
    if (SCRIPT_RUNNERS.has(program)) {
      const script = argv.slice(1).find((a) => !a.startsWith('-'));
      if (script !== undefined) candidates.push(programName(script));
    }
  }
  return candidates.some((c) => wanted.has(c.replace(STRIPPED_EXTENSIONS, '')));
}

/** Finds processes named in `processNames` in the tree under `rootPid` (root included). */
export async function findProcessesInTree(
  table: ProcessTable,
  rootPid: number,
  processNames: readonly string[],
  options: ProcOptions = {},
): Promise<ProcessMatch> {
  const root = options.procRoot ?? '/proc';
  const tree = descendantsOf(table, rootPid);
  if (processNames.length === 0) return { pids: [], inspected: tree.length };
  const matches = await Promise.all(
    tree.map(async (pid) => {
      const comm = table.get(pid)?.comm ?? '';
      const cmdline = await readOptional(`${root}/${pid}/cmdline`);
      // Zombies and kernel threads have an empty cmdline; their comm still counts.
      const argv = cmdline
        ? cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1)
        : [];
      return matchesProcessName(comm, argv, processNames);
    }),
  );
  return { pids: tree.filter((_, i) => matches[i]), inspected: tree.length };
}

/** Reads the table and searches one tree: the whole inspection for a single pane. */
export async function findProcesses(
  rootPid: number,
  processNames: readonly string[],
  options: ProcOptions = {},
): Promise<ProcessMatch> {
  const table = await readProcessTable(options);
  return findProcessesInTree(table, rootPid, processNames, options);
}

function programName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
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

// Processes come and go while we read; a vanished one is simply absent.
async function readOptional(path: string): Promise<string | null> {
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
