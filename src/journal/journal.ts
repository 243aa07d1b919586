import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  fdatasyncSync as fdatasync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  BehaviorSubject,
  Observable,
  Subject,
  asyncScheduler,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { PanewardError } from '../errors.js';
import { RECORD_FORMAT, type JournalRecord, type RecordDraft } from '../schemas/record.js';
import { encodeLine } from './codec.js';
import { RestoreIndex } from './restore.js';
import {
  fileSize,
  journalDir,
  listSegments,
  processStartTime,
  readLock,
  readSegments,
  scanSegment,
  segmentName,
  type DamagedLine,
  type SegmentScan,
} from './segments.js';

export interface JournalOptions {
  /** The data directory; `null` keeps records in memory only (replay, tests). */
  dataDir: string | null;
  /** The clock (`now()` in epoch ms) that stamps `at`. */
  scheduler?: SchedulerLike;
  /** A segment is closed and a new one started past this size; default 16 MiB. */
  segmentBytes?: number;
  /** How many segments are kept (the oldest go first); default 16. */
  retainSegments?: number;
  /** fsync each batch before acknowledging it; default true. */
  fsync?: boolean;
  /** Records kept per terminal for `recent()`; default 500. */
  recentPerTerminal?: number;
  /** Told how long each record took from append to acknowledgement, in ms. */
  onAck?: (latencyMs: number) => void;
  /** The latest acknowledged records kept in memory for readers that follow closely; default 10000. */
  tailSize?: number;
  /** While the journal cannot write, how often it checks whether it can again, in ms; default 1000. */
  probeMs?: number;
}

/** Why the journal cannot write, since when (epoch ms). */
export interface JournalFailure {
  code: 'journal_failed';
  message: string;
  since: number;
}

/** A range of seqs a reader asked for and does not get: dropped by retention, or on a damaged line. */
export interface RecordGap {
  from: number;
  to: number;
  reason: 'retention' | 'damaged';
}

interface Pending {
  record: JournalRecord;
  /** `performance.now()` at append. */
  since: number;
  line: string;
  /** This record starts a new segment (a checkpoint). */
  rotate: boolean;
  resolve: (r: JournalRecord) => void;
  reject: (e: unknown) => void;
}

/**
 * The record stream, durable: append-only JSON Lines segments under `<dataDir>/journal/`,
 * a CRC per line, one writer per data directory (a lock file naming its process). An appended
 * record gets its `seq` at once; it is acknowledged (its promise resolves and `records$` emits
 * it) only after every byte of it has been written and fsynced. Appends made while a batch is
 * being written form the next batch (group commit). A torn last line left by a crash is cut off
 * on open, nothing before it lost; a damaged complete line is skipped, reported in `damaged`,
 * and its seq is never handed out again. A segment past `segmentBytes` is closed and the next
 * one starts with a checkpoint record (what the restore index holds), so old segments can be
 * dropped; a torn checkpoint is restored from the segments before it.
 *
 * A write that fails (a full disk, an I/O error) is undone (the segment is cut back to its last
 * acknowledged byte), its records are rejected, and the journal reports `failure` (and on
 * `health$`) and rejects appends at once. Every `probeMs` it checks whether it can write again
 * (it writes, fsyncs and removes a probe file as large as a batch); once it can, the failure is
 * cleared and appends are written again. Seqs of rejected records were never acknowledged and
 * are handed out again; an acknowledged seq never is.
 */
export class Journal {
  readonly index = new RestoreIndex();
  /** What opening found and repaired: a torn last line cut off, in bytes. */
  readonly repairedBytes: number;
  /** Damaged lines opening found (skipped, kept on disk), with file and line. */
  readonly damaged: DamagedLine[] = [];
  private readonly subject = new Subject<JournalRecord>();
  private readonly healthSubject = new BehaviorSubject<JournalFailure | null>(null);
  private readonly scheduler: SchedulerLike;
  private readonly dir: string | null;
  private readonly segmentBytes: number;
  private readonly retainSegments: number;
  private readonly fsync: boolean;
  private readonly recentLimit: number;
  private readonly onAck: ((latencyMs: number) => void) | undefined;
  private readonly probeMs: number;
  private readonly recentByTerminal = new Map<string, JournalRecord[]>();
  private readonly memory: JournalRecord[] = [];
  /** The latest acknowledged records, oldest first (a window readers that keep up are served from). */
  private readonly tail: JournalRecord[] = [];
  private readonly tailSize: number;
  private seq: number;
  private durable: number;
  private pending: Pending[] = [];
  private draining: Promise<void> | null = null;
  private handle: FileHandle | null = null;
  private segmentFile: string | null = null;
  private segmentSize = 0;
  private assignedBytes = 0;
  private failed: PanewardError | null = null;
  private probeTimer: ReturnType<typeof setInterval> | null = null;
  private closed = false;
  private readonly lockFile: string | null;

  /** Acknowledged (durable) records, in `seq` order, as they are acknowledged. */
  readonly records$: Observable<JournalRecord> = this.subject.asObservable();
  /** Why the journal cannot write (null while it can), now and at each change. */
  readonly health$: Observable<JournalFailure | null> = this.healthSubject.asObservable();

  constructor(options: JournalOptions) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.segmentBytes = options.segmentBytes ?? 16 * 1024 * 1024;
    this.retainSegments = Math.max(2, options.retainSegments ?? 16);
    this.fsync = options.fsync ?? true;
    this.recentLimit = options.recentPerTerminal ?? 500;
    this.onAck = options.onAck;
    this.tailSize = Math.max(1, options.tailSize ?? 10_000);
    this.probeMs = Math.max(10, options.probeMs ?? 1000);
    if (options.dataDir === null) {
      this.dir = null;
      this.lockFile = null;
      this.seq = 0;
      this.durable = 0;
      this.repairedBytes = 0;
      return;
    }
    const dataDir = options.dataDir;
    this.dir = journalDir(dataDir);
    this.lockFile = join(dataDir, 'lock');
    try {
      privateDir(dataDir);
      privateDir(this.dir);
      this.lock(this.lockFile);
    } catch (error) {
      throw startupError(dataDir, error);
    }
    let repaired = 0;
    try {
      const segments = listSegments(this.dir);
      for (const seg of segments) privateFile(seg.file);
      const last = segments.at(-1);
      let lastSeq = 0;
      if (last) {
        const scan = scanSegment(last.file);
        if (scan.tornBytes > 0) {
          const fd = openSync(last.file, 'r+');
          try {
            ftruncateSync(fd, scan.goodBytes);
          } finally {
            closeSync(fd);
          }
          repaired = scan.tornBytes;
        }
        // The restore index starts at the newest intact checkpoint: when the newest segment's
        // own is torn (or missing), the segments before it are read back to one that has it.
        const scans: SegmentScan[] = [scan];
        for (let i = segments.length - 2; i >= 0 && !startsWithCheckpoint(scans[0]!); i--) {
          scans.unshift(scanSegment(segments[i]!.file));
        }
        for (const sc of scans) {
          for (const r of sc.records) {
            this.index.apply(r);
            this.remember(r);
          }
          this.damaged.push(...sc.damaged);
          lastSeq = Math.max(lastSeq, sc.highestSeq ?? 0);
        }
        lastSeq = Math.max(lastSeq, last.firstSeq - 1);
        this.segmentFile = last.file;
        this.segmentSize = scan.goodBytes;
      }
      this.seq = lastSeq;
      this.durable = lastSeq;
      this.assignedBytes = this.segmentSize;
    } catch (error) {
      this.unlock();
      throw startupError(dataDir, error);
    }
    this.repairedBytes = repaired;
  }

  /** The data directory's journal folder, or null for an in-memory journal. */
  get directory(): string | null {
    return this.dir;
  }

  /** The last `seq` handed out. */
  get lastSeq(): number {
    return this.seq;
  }

  /** The last `seq` acknowledged (durable). */
  get durableSeq(): number {
    return this.durable;
  }

  /** Why the journal cannot write, or null while it can. */
  get failure(): JournalFailure | null {
    return this.healthSubject.value;
  }

  /**
   * Appends a record: `seq` and `at` are given now; resolves with the record once it is
   * durable. Rejects while the journal cannot be written (see `failure`).
   */
  append(draft: RecordDraft): Promise<JournalRecord> {
    if (this.closed) return Promise.reject(new PanewardError('stopped', 'the journal is closed'));
    if (this.failed) return Promise.reject(this.failed);
    if (this.dir !== null && this.assignedBytes >= this.segmentBytes) {
      this.assignedBytes = 0;
      // Its failure is the next append's failure too; nobody waits on the checkpoint itself.
      this.enqueue({ kind: 'checkpoint', terminalId: null, ...this.index.snapshot() }, true).catch(
        () => {},
      );
    }
    return this.enqueue(draft, false);
  }

  /** Acknowledged records with `seq > afterSeq` (optionally of one terminal), oldest first. */
  read(afterSeq = 0, terminalId?: string): JournalRecord[] {
    const keep = (r: JournalRecord) =>
      r.seq > afterSeq &&
      r.seq <= this.durable &&
      (terminalId === undefined || r.terminalId === terminalId);
    if (this.dir === null) return this.memory.filter(keep);
    return readSegments(this.dir, afterSeq, keep).records;
  }

  /**
   * At most `limit` acknowledged records after `afterSeq` (optionally of one terminal), oldest
   * first: from memory when the reader keeps up with the latest records, else from disk.
   * `onGap` is told of each range of seqs in between that is not there to read (dropped by
   * retention, or a damaged line).
   */
  readAfter(
    afterSeq: number,
    options: {
      terminalId?: string;
      limit?: number;
      onGap?: (gap: RecordGap) => void;
    } = {},
  ): JournalRecord[] {
    const limit = options.limit ?? Infinity;
    const keep = (r: JournalRecord) =>
      options.terminalId === undefined || r.terminalId === options.terminalId;
    const first = this.tail[0];
    let source: JournalRecord[];
    let damaged: DamagedLine[] = [];
    if (first !== undefined && first.seq <= afterSeq + 1) source = this.tail;
    else if (this.dir === null) source = this.memory;
    else ({ records: source, damaged } = readSegments(this.dir, afterSeq));
    const out: JournalRecord[] = [];
    let expected = afterSeq + 1;
    for (const r of source) {
      if (r.seq <= afterSeq || r.seq > this.durable) continue;
      if (r.seq > expected && options.onGap) {
        const hole = damaged.some((d) => d.seq !== null && d.seq >= expected && d.seq < r.seq);
        const retention = expected === afterSeq + 1 && source !== this.tail && !hole;
        options.onGap({
          from: expected,
          to: r.seq - 1,
          reason: retention ? 'retention' : 'damaged',
        });
      }
      expected = r.seq + 1;
      if (!keep(r)) continue;
      out.push(r);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** The latest acknowledged records of one terminal (kept in memory), oldest first. */
  recent(terminalId: string, limit?: number): JournalRecord[] {
    const list = this.recentByTerminal.get(terminalId) ?? [];
    return limit === undefined ? list.slice() : list.slice(-limit);
  }

  /**
   * Every acknowledged record with `seq > afterSeq`, then each new one as it is acknowledged:
   * no gap and no duplicate between what was on disk and what comes live.
   */
  follow(afterSeq = 0, terminalId?: string): Observable<JournalRecord> {
    return new Observable<JournalRecord>((sub) => {
      let last = afterSeq;
      let backlog: JournalRecord[] | null = [];
      const live: Subscription = this.subject.subscribe({
        next: (r) => {
          if (backlog) backlog.push(r);
          else if (r.seq > last) {
            last = r.seq;
            if (terminalId === undefined || r.terminalId === terminalId) sub.next(r);
          }
        },
        complete: () => sub.complete(),
      });
      try {
        for (const r of this.read(afterSeq, terminalId)) {
          last = r.seq;
          sub.next(r);
        }
        const queued = backlog;
        backlog = null;
        for (const r of queued) {
          if (r.seq <= last) continue;
          last = r.seq;
          if (terminalId === undefined || r.terminalId === terminalId) sub.next(r);
        }
      } catch (error) {
        sub.error(error);
      }
      return () => live.unsubscribe();
    });
  }

  /** Resolves once everything appended so far is durable; rejects if some of it could not be. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
    if (this.failed) throw this.failed;
  }

  /**
   * Waits for the write in flight, closes the segment and releases the lock. Later appends
   * reject. It never throws for a journal that cannot write (those appends were rejected
   * already) and never waits for space to come back.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopProbe();
    try {
      while (this.draining) await this.draining;
    } finally {
      await this.handle?.close().catch(() => {});
      this.handle = null;
      this.unlock();
      this.subject.complete();
      this.healthSubject.complete();
    }
  }

  private enqueue(draft: RecordDraft, rotate: boolean): Promise<JournalRecord> {
    this.seq += 1;
    const record = {
      v: RECORD_FORMAT,
      seq: this.seq,
      at: new Date(this.scheduler.now()).toISOString(),
      ...draft,
    } as JournalRecord;
    this.index.apply(record);
    const line = encodeLine(record);
    this.assignedBytes += Buffer.byteLength(line);
    return new Promise<JournalRecord>((resolve, reject) => {
      this.pending.push({ record, line, rotate, since: performance.now(), resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    // One turn of the event loop: appends made together are written together.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        // A batch is written in chunks (a checkpoint starts a new one, in a new segment);
        // each chunk is acknowledged once all of it is on disk.
        let done = 0;
        try {
          while (done < batch.length) {
            let end = done + 1;
            while (end < batch.length && !batch[end]!.rotate) end++;
            const chunk = batch.slice(done, end);
            if (this.dir !== null) await this.write(chunk);
            done = end;
            this.acknowledge(chunk);
          }
        } catch (error) {
          this.fail(error, [...batch.slice(done), ...this.pending]);
          this.pending = [];
          return;
        }
      }
    } finally {
      this.draining = null;
    }
  }

  private acknowledge(chunk: Pending[]): void {
    const acked = performance.now();
    for (const p of chunk) {
      this.onAck?.(acked - p.since);
      this.durable = p.record.seq;
      this.remember(p.record);
      this.tail.push(p.record);
      if (this.tail.length > this.tailSize) this.tail.splice(0, this.tail.length - this.tailSize);
      if (this.dir === null) this.memory.push(p.record);
      this.subject.next(p.record);
      p.resolve(p.record);
    }
  }

  /** A chunk of records that begins a segment when its first one is a checkpoint. */
  private async write(chunk: Pending[]): Promise<void> {
    if (chunk[0]!.rotate || this.segmentFile === null)
      await this.startSegment(chunk[0]!.record.seq);
    const buf = Buffer.from(chunk.map((p) => p.line).join(''));
    if (!this.handle) this.handle = await open(this.segmentFile!, 'a', 0o600);
    // A short write (a full disk) is continued; an error is the journal's failure.
    let written = 0;
    while (written < buf.length) {
      const { bytesWritten } = await this.handle.write(buf, written, buf.length - written);
      if (bytesWritten <= 0) throw new Error('the disk took no bytes (write returned 0)');
      written += bytesWritten;
    }
    if (this.fsync) await this.handle.datasync();
    this.segmentSize += buf.length;
  }

  private async startSegment(firstSeq: number): Promise<void> {
    await this.handle?.close();
    this.handle = null;
    this.segmentFile = join(this.dir!, segmentName(firstSeq));
    this.segmentSize = fileSize(this.segmentFile);
    const segments = listSegments(this.dir!);
    for (const old of segments.slice(0, Math.max(0, segments.length + 1 - this.retainSegments))) {
      if (old.file !== this.segmentFile) rmSync(old.file, { force: true });
    }
  }

  /**
   * A write failed: what it left of the chunk is cut off the segment, the records not written
   * are rejected and their seqs handed out again (none was acknowledged), and the probe starts.
   */
  private fail(error: unknown, rejected: Pending[]): void {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOSPC'
        ? `the disk is full (${this.dir})`
        : `${error instanceof Error ? error.message : String(error)} (${this.dir})`;
    this.failed = new PanewardError('journal_failed', `the journal cannot be written: ${reason}`, {
      cause: error,
    });
    this.seq = this.durable;
    try {
      if (this.segmentFile !== null && fileSize(this.segmentFile) > this.segmentSize) {
        truncateSync(this.segmentFile, this.segmentSize);
      }
    } catch {
      // The probe cuts it back before the journal writes again.
    }
    // A checkpoint that was not written is written again by the next append.
    if (rejected.some((p) => p.rotate)) this.assignedBytes = this.segmentBytes;
    for (const p of rejected) p.reject(this.failed);
    this.healthSubject.next({
      code: 'journal_failed',
      message: this.failed.message,
      since: this.scheduler.now(),
    });
    this.probeTimer ??= setInterval(() => this.probe(), this.probeMs);
    this.probeTimer.unref?.();
  }

  /** While failed: can the journal write again? Cut the segment back, then write a probe file. */
  private probe(): void {
    if (this.closed || this.draining) return;
    try {
      if (this.segmentFile !== null && fileSize(this.segmentFile) > this.segmentSize) {
        truncateSync(this.segmentFile, this.segmentSize);
      }
      const file = join(this.dir!, '.probe');
      try {
        const fd = openSync(file, 'w', 0o600);
        try {
          writeFileSync(fd, Buffer.alloc(64 * 1024, 0x20));
          if (this.fsync) fdatasync(fd);
        } finally {
          closeSync(fd);
        }
      } finally {
        rmSync(file, { force: true });
      }
    } catch {
      return;
    }
    this.failed = null;
    this.stopProbe();
    this.healthSubject.next(null);
  }

  private stopProbe(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  private remember(r: JournalRecord): void {
    if (r.terminalId === null) return;
    let list = this.recentByTerminal.get(r.terminalId);
    if (!list) this.recentByTerminal.set(r.terminalId, (list = []));
    list.push(r);
    if (list.length > this.recentLimit) list.splice(0, list.length - this.recentLimit);
  }

  private lock(file: string): void {
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

  private unlock(): void {
    if (!this.lockFile) return;
    OPEN_HERE.delete(this.lockFile);
    if (readLock(this.lockFile)?.pid === process.pid) rmSync(this.lockFile, { force: true });
  }
}

/** Lock files held by journals open in this process. */
const OPEN_HERE = new Set<string>();

function startsWithCheckpoint(scan: SegmentScan): boolean {
  return scan.records[0]?.kind === 'checkpoint';
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

/**
 * Creates a directory only its owner can enter (0700), and tightens one that exists with a
 * looser mode (it holds screens and prompts). One not owned by this user is left as it is.
 */
function privateDir(dir: string): void {
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
function privateFile(file: string): void {
  const st = statSync(file);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(file, st.mode & 0o600);
}

/** What to do about an error opening a data directory, in one line naming the path. */
function startupError(dataDir: string, error: unknown): unknown {
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
