import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { listPids, readStatEntry, walkSubtree } from '../observe/internal/procfs.js';

/**
 * What a CLI leaves behind when its pane is closed. Some CLIs start helpers that outlive them
 * (Codex starts an app-server daemon in a session of its own; it is a child of the CLI while the
 * CLI runs and is handed to init when it ends), and closing the window does not reach them. A
 * stop notes the pane's process and its descendants before it types the exit command, and once
 * the window is gone ends those still alive: SIGTERM, then SIGKILL after a short grace.
 *
 * A helper that detached at once (a double fork) is never a descendant when the tree is read:
 * the CLI a spawn starts carries a marker in its environment ({@link SPAWN_MARKER}, a value no
 * other spawn has), which every process it starts inherits, so those are found by it. Nothing is
 * ended that was not started from that pane: a pid is ended only while it is the same process
 * that was noted (its start time), and never paneward itself, its parent or the tmux server.
 */

/** The environment variable that marks every process a spawn started. */
export const SPAWN_MARKER = 'PANEWARD_SPAWN';

/** How long the processes left behind have to end after SIGTERM before SIGKILL. */
export const LEFTOVER_GRACE_MS = 2000;

const PROC = '/proc';

/** One process, as noted: its pid and its start time, which tells a reused pid apart. */
export interface Noted {
  pid: number;
  start: number;
}

/** A new marker value: unique to one spawn. */
export function newSpawnMark(): string {
  return randomBytes(12).toString('hex');
}

/** `pid` and its descendants as they run now (empty when it is gone). */
export async function treeOf(pid: number): Promise<Noted[]> {
  const tree = (await walkSubtree(PROC, pid)) ?? (await scanTree(pid));
  const out: Noted[] = [];
  for (const e of tree) {
    const s = readStatEntry(PROC, e.pid);
    if (s && !s.exited) out.push({ pid: s.pid, start: s.start });
  }
  return out;
}

/** The subtree from a full scan (a kernel without `children` lists). */
async function scanTree(root: number): Promise<Array<{ pid: number }>> {
  const pids = await listPids(PROC);
  const parent = new Map<number, number>();
  for (const pid of pids) {
    const s = readStatEntry(PROC, pid);
    if (s) parent.set(pid, s.ppid);
  }
  const out = parent.has(root) ? [{ pid: root }] : [];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of parent) if (ppid === out[i]!.pid) out.push({ pid });
  }
  return out;
}

/** Every process of this user whose environment carries the spawn's marker. */
export async function markedWith(mark: string): Promise<Noted[]> {
  const entry = `\0${SPAWN_MARKER}=${mark}\0`;
  const out: Noted[] = [];
  for (const pid of await listPids(PROC)) {
    let environ: string;
    try {
      environ = readFileSync(`${PROC}/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone, or another user's
    }
    if (!`\0${environ}`.includes(entry)) continue;
    const s = readStatEntry(PROC, pid);
    if (s && !s.exited) out.push({ pid, start: s.start });
  }
  return out;
}

/** Whether the noted process still runs (the same one: its start time matches). */
function alive(p: Noted): boolean {
  const s = readStatEntry(PROC, p.pid);
  return s !== null && !s.exited && s.start === p.start;
}

/**
 * Ends the noted processes still alive, and what they started since: SIGTERM, then SIGKILL for
 * those still there after `graceMs`. `spare` are never signalled (paneward, the tmux server).
 * Answers the pids signalled.
 */
export async function endLeftovers(
  noted: readonly Noted[],
  spare: readonly number[] = [],
  graceMs = LEFTOVER_GRACE_MS,
): Promise<number[]> {
  const never = new Set([process.pid, process.ppid, 0, 1, ...spare]);
  const targets = new Map<number, Noted>();
  for (const p of noted) {
    if (never.has(p.pid) || !alive(p)) continue;
    for (const q of await treeOf(p.pid)) if (!never.has(q.pid)) targets.set(q.pid, q);
  }
  const signal = (p: Noted, sig: NodeJS.Signals) => {
    if (!alive(p)) return false;
    try {
      process.kill(p.pid, sig);
      return true;
    } catch {
      return false;
    }
  };
  const signalled = [...targets.values()].filter((p) => signal(p, 'SIGTERM'));
  const until = Date.now() + graceMs;
  while (signalled.some(alive) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const p of signalled) signal(p, 'SIGKILL');
  return signalled.map((p) => p.pid);
}

/** `a` and `b` together, each process once. */
export function union(a: readonly Noted[], b: readonly Noted[]): Noted[] {
  const m = new Map<string, Noted>();
  for (const p of [...a, ...b]) m.set(`${p.pid}:${p.start}`, p);
  return [...m.values()];
}

/** The parent of `pid` now; null when it is gone. */
export function parentOf(pid: number): number | null {
  return readStatEntry(PROC, pid)?.ppid ?? null;
}

/**
 * Ends, once its window is gone, what was started from a pane and still runs: the processes
 * noted (the pane's tree before the exit) and those carrying the spawn's marker.
 */
export async function endLeftBehind(
  noted: readonly Noted[],
  mark: string | null,
  server: number | null,
): Promise<void> {
  const marked = mark === null ? [] : await markedWith(mark);
  const all = union(noted, marked);
  if (all.length === 0) return;
  // The tmux server (the pane process's parent) is never one of them.
  await endLeftovers(all, server === null ? [] : [server]);
}
