import { setImmediate as nextTurn } from 'node:timers/promises';
import { PanewardError } from '../errors.js';
import { listPids, readOptional, readStatEntry, type StatEntry } from './internal/procfs.js';
import { matchesProcessName } from './process.js';

/** Options for {@link ProcessWatcher}. */
export interface ProcessWatcherOptions {
  /** Where /proc is; for tests. */
  procRoot?: string;
  /**
   * Every this many ms a refresh reads every process again, not only new ones: that catches a
   * pid reused between two refreshes, a process re-parented, an `exec` no pane asked about, and
   * a process that exited but is not reaped yet (a zombie keeps its /proc entry). Default 10000.
   */
  rescanMs?: number;
  /** Clock in ms; default `performance.now`. */
  now?: () => number;
}

/** What one refresh found changed. */
export interface ProcessChanges {
  /** Processes not in the table before (or whose pid now holds another process). */
  born: ReadonlyArray<{ pid: number; ppid: number }>;
  /** Pids that left the table. */
  died: readonly number[];
  /** True when this refresh read every process again. */
  full: boolean;
}

/** The agent processes under one pane root, and the whole subtree they were found in. */
export interface TreeMatch {
  /** Pids (root and descendants, parents first) whose name matched. */
  pids: number[];
  /** Every pid of the subtree, root first; empty when the root is gone. */
  tree: number[];
}

interface Entry extends StatEntry {
  /** `/proc/<pid>/cmdline` split on NULs, once read; null until a match needs it. */
  argv: string[] | null;
  /** The refresh generation that last read this entry's stat. */
  gen: number;
}

// Stat files read between two turns of the event loop: about 1 ms of work.
const CHUNK = 100;

/**
 * The process table kept up to date incrementally, shared by every pane of a frame source: a
 * refresh lists /proc (one directory read), reads the stat of new pids only and forgets dead
 * ones, yielding to the event loop between chunks; every `rescanMs` it reads everything again.
 * Panes are then matched against the table in memory. Linux only (`internal` elsewhere).
 */
export class ProcessWatcher {
  readonly #root: string;
  readonly #rescanMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<number, Entry>();
  readonly #children = new Map<number, Set<number>>();
  #gen = 0;
  #lastFullAt = -Infinity;
  #running: Promise<ProcessChanges> | null = null;
  #lastRefreshStartedAt = -Infinity;

  constructor(options: ProcessWatcherOptions = {}) {
    if (process.platform !== 'linux' && options.procRoot === undefined) {
      throw new PanewardError(
        'internal',
        `process inspection needs /proc (platform ${process.platform})`,
      );
    }
    this.#root = options.procRoot ?? '/proc';
    this.#rescanMs = options.rescanMs ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Processes in the table. */
  get size(): number {
    return this.#entries.size;
  }

  /** How many refreshes have completed. */
  get generation(): number {
    return this.#gen;
  }

  /** `now()` when the last refresh started (its table is at least that fresh). */
  get refreshedAt(): number {
    return this.#lastRefreshStartedAt;
  }

  /**
   * Brings the table up to date. A call while a refresh runs shares it. Rejects with
   * `internal` when /proc cannot be listed.
   */
  refresh(): Promise<ProcessChanges> {
    if (this.#running) return this.#running;
    const run = this.#refresh().finally(() => {
      this.#running = null;
    });
    this.#running = run;
    return run;
  }

  /** Resolves after a refresh that started no earlier than now. */
  async refreshFromNow(): Promise<ProcessChanges> {
    const asked = this.#now();
    const running = this.#running;
    if (running && this.#lastRefreshStartedAt >= asked) return running;
    if (running) await running.catch(() => undefined);
    return this.refresh();
  }

  async #refresh(): Promise<ProcessChanges> {
    const startedAt = this.#now();
    const full = startedAt - this.#lastFullAt >= this.#rescanMs;
    this.#lastRefreshStartedAt = startedAt;
    const listed = await listPids(this.#root);
    const gen = this.#gen + 1;
    const present = new Set(listed);
    const died: number[] = [];
    for (const pid of this.#entries.keys()) {
      if (!present.has(pid)) died.push(pid);
    }
    for (const pid of died) this.#remove(pid);
    const born: Array<{ pid: number; ppid: number }> = [];
    let sinceYield = 0;
    for (const pid of listed) {
      const known = this.#entries.get(pid);
      if (known && !full) continue;
      if (++sinceYield > CHUNK) {
        sinceYield = 0;
        await nextTurn();
      }
      const stat = readStatEntry(this.#root, pid);
      // An exited process waiting to be reaped is dead for a pane's purposes.
      if (!stat || stat.exited) {
        if (known) {
          this.#remove(pid);
          died.push(pid);
        }
        continue;
      }
      if (known && known.start === stat.start && known.ppid === stat.ppid) {
        if (known.comm !== stat.comm) known.argv = null;
        known.comm = stat.comm;
        known.gen = gen;
        continue;
      }
      if (known) {
        this.#remove(pid);
        if (known.start !== stat.start) died.push(pid);
      }
      this.#add({ ...stat, argv: null, gen });
      born.push({ pid, ppid: stat.ppid });
    }
    this.#gen = gen;
    if (full) this.#lastFullAt = startedAt;
    return { born, died, full };
  }

  /**
   * The processes under `rootPid` whose name is one of `processNames`, from the table (a root
   * born after the last refresh is read at once, its children at the next refresh). Subtree
   * members that do not match have their stat read again when older than the last refresh, so
   * an `exec` in place (`env` becoming the agent) is seen. Resolves with an empty tree when the
   * root is gone. Reads command lines (once per process) only when the name alone does not say.
   */
  async match(rootPid: number, processNames: readonly string[]): Promise<TreeMatch> {
    let root = this.#entries.get(rootPid);
    if (!root) {
      const stat = readStatEntry(this.#root, rootPid);
      if (!stat || stat.exited) return { pids: [], tree: [] };
      root = { ...stat, argv: null, gen: this.#gen };
      this.#add(root);
    }
    const tree = this.#subtree(rootPid);
    let pids = await this.#matching(tree, processNames);
    if (pids.length === 0 && processNames.length > 0) {
      let changed = false;
      for (const pid of tree) {
        const entry = this.#entries.get(pid);
        if (!entry || entry.gen >= this.#gen) continue;
        const stat = readStatEntry(this.#root, pid);
        entry.gen = this.#gen;
        if (!stat || stat.start !== entry.start || stat.exited) continue;
        if (stat.comm !== entry.comm) {
          entry.comm = stat.comm;
          entry.argv = null;
          changed = true;
        }
      }
      if (changed) pids = await this.#matching(tree, processNames);
    }
    return { pids, tree };
  }

  #subtree(rootPid: number): number[] {
    const out: number[] = [];
    const seen = new Set<number>();
    const queue = [rootPid];
    for (let i = 0; i < queue.length; i++) {
      const pid = queue[i]!;
      const entry = this.#entries.get(pid);
      if (!entry || seen.has(pid)) continue;
      seen.add(pid);
      out.push(pid);
      for (const child of this.#children.get(pid) ?? []) {
        // A child that started before this process was the child of an earlier owner of the
        // pid (orphaned, not yet seen re-parented): not part of this tree.
        const c = this.#entries.get(child);
        if (c && !(entry.start > 0 && c.start > 0 && c.start < entry.start)) queue.push(child);
      }
    }
    return out;
  }

  async #matching(tree: readonly number[], processNames: readonly string[]): Promise<number[]> {
    if (processNames.length === 0) return [];
    const wanted = new Set(processNames);
    const out: number[] = [];
    for (const pid of tree) {
      const entry = this.#entries.get(pid);
      if (!entry) continue;
      if (wanted.has(entry.comm)) {
        out.push(pid);
        continue;
      }
      if (entry.argv === null) {
        const cmdline = await readOptional(`${this.#root}/${pid}/cmdline`);
        // Zombies and kernel threads have an empty cmdline; their comm still counts.
        entry.argv = cmdline
          ? cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1)
          : [];
      }
      if (matchesProcessName(entry.comm, entry.argv, processNames)) out.push(pid);
    }
    return out;
  }

  #add(entry: Entry): void {
    this.#entries.set(entry.pid, entry);
    let kids = this.#children.get(entry.ppid);
    if (!kids) this.#children.set(entry.ppid, (kids = new Set()));
    kids.add(entry.pid);
  }

  #remove(pid: number): void {
    const entry = this.#entries.get(pid);
    if (!entry) return;
    this.#entries.delete(pid);
    const kids = this.#children.get(entry.ppid);
    kids?.delete(pid);
    if (kids?.size === 0) this.#children.delete(entry.ppid);
  }
}
