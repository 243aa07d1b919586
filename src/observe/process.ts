import { performance } from 'node:perf_hooks';
import { PanewardError } from '../errors.js';
import { readOptional, scanProcesses, walkSubtree } from './internal/procfs.js';
import type { ProcessEntry } from './internal/procfs.js';

export type { ProcessEntry };

/** A snapshot of the process table: pid → entry. */
export type ProcessTable = ReadonlyMap<number, ProcessEntry>;

/** One process of a pane's tree, with what name matching needs. */
export interface TreeProcess extends ProcessEntry {
  /** `/proc/<pid>/cmdline` split on NULs; empty for zombies and kernel threads. */
  argv: string[];
}

/** Result of looking for agent processes under one pane. */
export interface ProcessMatch {
  /** Pids (the pane's own process and its descendants) whose name matched, in tree order. */
  pids: number[];
  /** How many processes the tree held, the root included. */
  inspected: number;
}

/** Options for the /proc readers. */
export interface ProcOptions {
  /** Where /proc is; for tests. */
  procRoot?: string;
  /**
   * When the whole table has to be scanned (the kernel does not list children), accept a table
   * whose scan started at most this many ms ago, or is still running; default 0 (always scan).
   * Many panes polled together then share one scan.
   */
  maxAgeMs?: number;
}

// Programs that run a script named by their first non-option argument.
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx']);
const STRIPPED_EXTENSIONS = /\.(?:js|mjs|cjs|exe)$/;

/**
 * Reads pid, parent pid and name of every process (Linux /proc). The scan yields to the event
 * loop every hundred processes. Rejects with `internal` when /proc cannot be listed or read.
 */
export async function readProcessTable(options: ProcOptions = {}): Promise<ProcessTable> {
  const root = procRootOf(options);
  return scanProcesses(root);
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

/**
 * The tree under `rootPid` (root first, parents before children) with each process's argv.
 * Reads only that subtree when the kernel lists children (`/proc/<pid>/task/<tid>/children`),
 * otherwise scans the whole table (shared within `maxAgeMs`). Empty when the root is gone.
 * Rejects with `internal` when /proc cannot be read.
 */
export async function readProcessTree(
  rootPid: number,
  options: ProcOptions = {},
): Promise<TreeProcess[]> {
  const root = procRootOf(options);
  const walked = await walkSubtree(root, rootPid);
  if (walked !== null) return withArgv(root, walked);
  const table = await sharedTable(root, options.maxAgeMs ?? 0);
  return treeFromTable(table, rootPid, options);
}

/** The tree under `rootPid` as an already-read table holds it, with each process's argv. */
export async function treeFromTable(
  table: ProcessTable,
  rootPid: number,
  options: ProcOptions = {},
): Promise<TreeProcess[]> {
  const entries = descendantsOf(table, rootPid).flatMap((pid) => table.get(pid) ?? []);
  return withArgv(procRootOf(options), entries);
}

/** Pids in `tree` (in its order) whose process is one of `processNames`. */
export function matchTree(tree: readonly TreeProcess[], processNames: readonly string[]): number[] {
  if (processNames.length === 0) return [];
  return tree.filter((p) => matchesProcessName(p.comm, p.argv, processNames)).map((p) => p.pid);
}

/** The whole inspection for a single pane: its tree, then the name match. */
export async function findProcesses(
  rootPid: number,
  processNames: readonly string[],
  options: ProcOptions = {},
): Promise<ProcessMatch> {
  const tree = await readProcessTree(rootPid, options);
  return { pids: matchTree(tree, processNames), inspected: tree.length };
}

function procRootOf(options: ProcOptions): string {
  if (process.platform !== 'linux' && options.procRoot === undefined) {
    throw new PanewardError(
      'internal',
      `process inspection needs /proc (platform ${process.platform})`,
    );
  }
  return options.procRoot ?? '/proc';
}

async function withArgv(root: string, entries: readonly ProcessEntry[]): Promise<TreeProcess[]> {
  return Promise.all(
    entries.map(async (entry) => {
      const cmdline = await readOptional(`${root}/${entry.pid}/cmdline`);
      // Zombies and kernel threads have an empty cmdline; their comm still counts.
      const argv = cmdline
        ? cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1)
        : [];
      return { ...entry, argv };
    }),
  );
}

// One full scan at a time, reused for `maxAgeMs`: panes polled together share it.
let shared: { root: string; startedAt: number; table: Promise<ProcessTable> } | null = null;

function sharedTable(root: string, maxAgeMs: number): Promise<ProcessTable> {
  const now = performance.now();
  if (maxAgeMs > 0 && shared?.root === root && now - shared.startedAt <= maxAgeMs) {
    return shared.table;
  }
  const entry = { root, startedAt: now, table: scanProcesses(root) };
  shared = entry;
  entry.table.catch(() => {
    if (shared === entry) shared = null;
  });
  return entry.table;
}

function programName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}
