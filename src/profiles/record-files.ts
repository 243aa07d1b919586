import { constants, type Stats } from 'node:fs';
import { open, readdir, readFile, readlink, stat, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { SessionContext } from './session-record.js';

/**
 * File helpers the session-record readers share for `locate`: the process's home, the first
 * line of a record, the files of a folder, and the rule that picks this process's session out of
 * the sessions started in its folder.
 */

/** How much earlier than the process's start time a session may say it started (clock ticks). */
export const START_SLACK_MS = 1000;

/** The home folder of the process: its `HOME`, else this process's own. */
export function homeOf(context: Pick<SessionContext, 'env'>): string {
  const home = context.env.HOME;
  return home && isAbsolute(home) ? home : homedir();
}

/** A folder named by an environment variable, `~/` expanded against the process's home. */
export function envFolder(
  context: Pick<SessionContext, 'env' | 'cwd'>,
  name: string,
): string | null {
  const value = context.env[name];
  if (!value) return null;
  if (value === '~') return homeOf(context);
  if (value.startsWith('~/')) return join(homeOf(context), value.slice(2));
  return resolve(context.cwd, value);
}

/** The names in a folder (none when it is missing or unreadable). */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** What a path is, as `stat` says: only a `file` (a regular file) is ever read as a record. */
export type FileKind =
  | 'file'
  | 'directory'
  | 'fifo'
  | 'socket'
  | 'character device'
  | 'block device'
  | 'symbolic link'
  | 'unknown';

export function fileKind(s: Stats): FileKind {
  if (s.isFile()) return 'file';
  if (s.isDirectory()) return 'directory';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character device';
  if (s.isBlockDevice()) return 'block device';
  if (s.isSymbolicLink()) return 'symbolic link';
  return 'unknown';
}

/** A record path that is not a regular file: it is not read (docs/session-records.md). */
export class NotRegularFile extends Error {
  constructor(
    readonly file: string,
    readonly kind: FileKind,
    /** Found only at the open (the path was swapped after it was looked at). */
    readonly atOpen = false,
  ) {
    super(`${file} is a ${kind}, not a regular file`);
    this.name = 'NotRegularFile';
  }
}

/**
 * Read-only, never blocking on open: a FIFO (no writer) or a device swapped in for the file
 * after it was looked at opens at once instead of holding a thread of libuv's pool for good.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Opens a session record (or any file a reader looks into) for reading, only if it is a
 * regular file: `stat` first (so a FIFO, a device or a socket is not even opened), then an open
 * that cannot block, then `fstat` of what was opened (the path may have been swapped meanwhile).
 * Throws {@link NotRegularFile} naming what the path is instead, and the open's own error (such as
 * `ENOENT`) when it is missing.
 */
export async function openRegular(file: string): Promise<{ handle: FileHandle; stats: Stats }> {
  const before = await stat(file);
  if (!before.isFile()) throw new NotRegularFile(file, fileKind(before));
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (e) {
    // A socket bound at the path since `stat`: opening it fails with ENXIO.
    if ((e as NodeJS.ErrnoException).code === 'ENXIO')
      throw new NotRegularFile(file, 'socket', true);
    throw e;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFile(file, fileKind(stats), true);
    return { handle, stats };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * Reads `length` bytes at `position` in pieces of at most `chunk` bytes (one read never asks for
 * more); fewer when the file ends first.
 */
export async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
  chunk = 1 << 20,
): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const want = Math.min(chunk, length - done);
    const { bytesRead } = await handle.read(buf, done, want, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/**
 * The whole text of a small regular file (a session's metadata), or null when it is missing, not
 * a regular file, or longer than `limit` bytes.
 */
export async function readSmallFile(file: string, limit = 1 << 20): Promise<string | null> {
  let opened;
  try {
    opened = await openRegular(file);
  } catch {
    return null;
  }
  try {
    if (opened.stats.size > limit) return null;
    return (await readAt(opened.handle, 0, opened.stats.size)).toString('utf8');
  } finally {
    await opened.handle.close();
  }
}

/** When a regular file was last written, epoch ms, or null when it is missing or not one. */
export async function modifiedAt(file: string): Promise<number | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.mtimeMs : null;
  } catch {
    return null;
  }
}

/** Whether `file` is a regular file now (`stat`: nothing is opened). */
export async function isRegularFile(file: string): Promise<boolean> {
  return (await modifiedAt(file)) !== null;
}

/**
 * The first complete line of a regular file, read in pieces up to `limit` bytes; null when the
 * file is missing, not a regular file, or has no complete first line within `limit` yet.
 */
export async function firstLine(file: string, limit = 4 << 20): Promise<string | null> {
  let handle;
  try {
    ({ handle } = await openRegular(file));
  } catch {
    return null;
  }
  try {
    const parts: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(64 * 1024);
    while (total < limit) {
      const want = Math.min(chunk.length, limit - total);
      const { bytesRead } = await handle.read(chunk, 0, want, total);
      if (bytesRead === 0) return null;
      const piece = chunk.subarray(0, bytesRead);
      const nl = piece.indexOf(0x0a);
      if (nl >= 0) {
        parts.push(Buffer.from(piece.subarray(0, nl)));
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(Buffer.from(piece));
      total += bytesRead;
    }
    return null;
  } finally {
    await handle.close();
  }
}

/** A JSON object, or null for anything else (not JSON, an array, a scalar). */
export function jsonObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Epoch ms of an ISO time stamp, or undefined. */
export function isoMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A session the CLI started, as its record's header says. */
export interface StartedSession {
  file: string;
  /** When the CLI started the session, epoch ms. */
  startedAtMs: number;
}

/** Start times (epoch ms) of the processes like `pid`: the same program, folder and home. */
export interface ProcessStarts {
  self: number;
  /** Every such process's start, `self` included. */
  all: number[];
}

const CLOCK_TICKS_PER_SECOND = 100;

async function procText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

async function procLink(path: string): Promise<string | null> {
  try {
    return await readlink(path);
  } catch {
    return null;
  }
}

/** Start of a process, epoch ms (boot time plus its start in clock ticks), from `/proc`. */
async function processStart(pid: number, bootMs: number): Promise<number | null> {
  const stat = await procText(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? bootMs + (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
}

function envHome(environ: string | null): string | undefined {
  return environ
    ?.split('\0')
    .find((v) => v.startsWith('HOME='))
    ?.slice(5);
}

/**
 * `pid` and every process under it, read from `/proc` (parents before children); just `pid`
 * where `/proc` does not tell. A CLI started by a launcher names its session by its own pid.
 */
export async function processTree(pid: number): Promise<number[]> {
  const parent = new Map<number, number>();
  for (const name of await namesIn('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await procText(`/proc/${name}/stat`);
    if (stat === null) continue;
    parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, ppid] of parent)
      if (ppid === tree[i] && !tree.includes(child)) tree.push(child);
  }
  return tree;
}

/**
 * The processes running the same program as `context.pid` (its executable and first argument) in
 * the same folder with the same home, read from `/proc`: the panes whose sessions land in the
 * same folder of records. Null where `/proc` does not tell (another system, another user).
 */
export async function processStarts(
  context: Pick<SessionContext, 'pid' | 'cwd' | 'env'>,
): Promise<ProcessStarts | null> {
  const btime = (await procText('/proc/stat'))?.match(/^btime (\d+)$/m)?.[1];
  if (!btime) return null;
  const bootMs = Number(btime) * 1000;
  const programOf = async (pid: number) => {
    const exe = await procLink(`/proc/${pid}/exe`);
    const argv = (await procText(`/proc/${pid}/cmdline`))?.split('\0') ?? [];
    return exe === null ? null : `${exe}\0${argv[1] ?? ''}`;
  };
  const program = await programOf(context.pid);
  const self = await processStart(context.pid, bootMs);
  if (program === null || self === null) return null;
  const home = context.env.HOME;
  const found = new Map<number, { ppid: number; start: number }>();
  for (const name of await namesIn('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid !== context.pid) {
      if ((await procLink(`/proc/${pid}/cwd`)) !== context.cwd) continue;
      if ((await programOf(pid)) !== program) continue;
      if (envHome(await procText(`/proc/${pid}/environ`)) !== home) continue;
    }
    const stat = await procText(`/proc/${pid}/stat`);
    const start = await processStart(pid, bootMs);
    if (stat === null || start === null) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    found.set(pid, { ppid, start });
  }
  // A process the CLI starts itself (a worker running the same program) is not another pane.
  const all = [...found.values()].filter((p) => !found.has(p.ppid)).map((p) => p.start);
  if (!all.includes(self)) all.push(self);
  return { self, all };
}

/**
 * The earliest a session that matters may have started: the start of the earliest process like
 * this one (its sessions keep their place when sessions are handed out), less the slack.
 */
export function sessionsSince(
  context: Pick<SessionContext, 'startedAtMs'>,
  starts: ProcessStarts | null,
): number {
  return Math.min(context.startedAtMs, ...(starts?.all ?? [])) - START_SLACK_MS;
}

/**
 * This process's session among those started in its folder, not followed by another pane.
 *
 * With the start times of the processes like it (`starts`), the sessions (all of them, claimed
 * or not, recorded or only announced) are handed out in order: each process, earliest first,
 * gets the first session started after it that no earlier process got (a CLI starts its first
 * session in its first seconds, and under load two panes' sessions may both begin after the
 * second pane started, still in the order the panes did). A session left over (begun anew in a
 * running process) goes to the process that started last before it. Of this process's sessions
 * the newest not claimed is taken. Without `starts`, the earliest unclaimed session started
 * after the process is taken: a later one may belong to a pane started after this one.
 */
export function pickSession(
  sessions: readonly StartedSession[],
  context: Pick<SessionContext, 'startedAtMs' | 'claimed'>,
  starts: ProcessStarts | null,
): StartedSession | null {
  const byStart = [...sessions].sort(
    (a, b) => a.startedAtMs - b.startedAtMs || a.file.localeCompare(b.file),
  );
  if (starts) {
    const processes = [...new Set(starts.all)].sort((a, b) => a - b);
    const owner = new Map<StartedSession, number>();
    let next = 0;
    for (const p of processes) {
      while (next < byStart.length && byStart[next]!.startedAtMs < p) next += 1;
      if (next >= byStart.length) break;
      owner.set(byStart[next]!, p);
      next += 1;
    }
    for (const s of byStart) {
      if (owner.has(s)) continue;
      const before = processes.filter((p) => p <= s.startedAtMs);
      if (before.length > 0) owner.set(s, before[before.length - 1]!);
    }
    const mine = byStart.filter(
      (s) => owner.get(s) === starts.self && !context.claimed.has(s.file),
    );
    return mine[mine.length - 1] ?? null;
  }
  return (
    byStart.find(
      (s) => s.startedAtMs >= context.startedAtMs - START_SLACK_MS && !context.claimed.has(s.file),
    ) ?? null
  );
}
