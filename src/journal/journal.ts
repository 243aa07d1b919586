import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Observable, Subject, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { PanewardError } from '../errors.js';
import { RECORD_FORMAT, type JournalRecord, type RecordDraft } from '../schemas/record.js';
import { encodeLine } from './codec.js';
import { RestoreIndex } from './restore.js';
import {
  fileSize,
  journalDir,
  listSegments,
  readLockPid,
  readRecords,
  scanSegment,
  segmentName,
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
 * a CRC per line, one writer per data directory (a lock file with its pid). An appended record
 * gets its `seq` at once; it is acknowledged (its promise resolves and `records$` emits it)
 * only after the batch it was written in has been fsynced. Appends made while a batch is being
 * written form the next batch (group commit), so an acknowledgement waits for at most the
 * write and fsync in flight plus its own. A torn last line left by a crash is cut off on open,
 * nothing before it lost. A segment past `segmentBytes` is closed and the next one starts with
 * a checkpoint record (what the restore index holds), so old segments can be dropped.
 */
export class Journal {
  readonly index = new RestoreIndex();
  /** What opening found and repaired: a torn last line cut off, in bytes. */
  readonly repairedBytes: number;
  private readonly subject = new Subject<JournalRecord>();
  private readonly scheduler: SchedulerLike;
  private readonly dir: string | null;
  private readonly segmentBytes: number;
  private readonly retainSegments: number;
  private readonly fsync: boolean;
  private readonly recentLimit: number;
  private readonly onAck: ((latencyMs: number) => void) | undefined;
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
  private failed: unknown = null;
  private closed = false;
  private readonly lockFile: string | null;

  /** Acknowledged (durable) records, in `seq` order, as they are acknowledged. */
  readonly records$: Observable<JournalRecord> = this.subject.asObservable();

  constructor(options: JournalOptions) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.segmentBytes = options.segmentBytes ?? 16 * 1024 * 1024;
    this.retainSegments = Math.max(2, options.retainSegments ?? 16);
    this.fsync = options.fsync ?? true;
    this.recentLimit = options.recentPerTerminal ?? 500;
    this.onAck = options.onAck;
    this.tailSize = Math.max(1, options.tailSize ?? 10_000);
    if (options.dataDir === null) {
      this.dir = null;
      this.lockFile = null;
      this.seq = 0;
      this.durable = 0;
      this.repairedBytes = 0;
      return;
    }
    this.dir = journalDir(options.dataDir);
    mkdirSync(this.dir, { recursive: true });
    this.lockFile = join(options.dataDir, 'lock');
    this.lock(this.lockFile);
    let repaired = 0;
    try {
      const segments = listSegments(this.dir);
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
        for (const r of scan.records) {
          this.index.apply(r);
          this.remember(r);
        }
        lastSeq = scan.records.at(-1)?.seq ?? last.firstSeq - 1;
        this.segmentFile = last.file;
        this.segmentSize = scan.goodBytes;
      }
      this.seq = lastSeq;
      this.durable = lastSeq;
      this.assignedBytes = this.segmentSize;
    } catch (error) {
      this.unlock();
      throw error;
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

  /**
   * Appends a record: `seq` and `at` are given now; resolves with the record once it is
   * durable. Rejects (and so does every later append) if the journal cannot be written.
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
    return readRecords(this.dir, afterSeq, keep);
  }

  /**
   * At most `limit` acknowledged records after `afterSeq` (optionally of one terminal), oldest
   * first: from memory when the reader keeps up with the latest records, else from disk.
   */
  readAfter(
    afterSeq: number,
    options: { terminalId?: string; limit?: number } = {},
  ): JournalRecord[] {
    const limit = options.limit ?? Infinity;
    const keep = (r: JournalRecord) =>
      options.terminalId === undefined || r.terminalId === options.terminalId;
    const first = this.tail[0];
    const source =
      first !== undefined && first.seq <= afterSeq + 1
        ? this.tail
        : this.dir === null
          ? this.memory
          : readRecords(this.dir, afterSeq);
    const out: JournalRecord[] = [];
    for (const r of source) {
      if (r.seq <= afterSeq || r.seq > this.durable || !keep(r)) continue;
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

  /** Resolves once everything appended so far is durable. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
    if (this.failed) throw this.failed;
  }

  /** Flushes, closes the segment and releases the lock. Later appends reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.handle?.close().catch(() => {});
      this.handle = null;
      this.unlock();
      this.subject.complete();
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
        try {
          if (this.dir !== null) await this.write(batch);
        } catch (error) {
          this.failed = new PanewardError(
            'journal_failed',
            `the journal cannot be written: ${String(error)}`,
            {
              cause: error,
            },
          );
          for (const p of [...batch, ...this.pending]) p.reject(this.failed);
          this.pending = [];
          return;
        }
        const acked = performance.now();
        for (const p of batch) {
          this.onAck?.(acked - p.since);
          this.durable = p.record.seq;
          this.remember(p.record);
          this.tail.push(p.record);
          if (this.tail.length > this.tailSize)
            this.tail.splice(0, this.tail.length - this.tailSize);
          if (this.dir === null) this.memory.push(p.record);
          this.subject.next(p.record);
          p.resolve(p.record);
        }
      }
    } finally {
      this.draining = null;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    let chunk = '';
    for (const p of batch) {
      if (p.rotate || this.segmentFile === null) {
        if (chunk) await this.writeChunk(chunk);
        chunk = '';
        await this.startSegment(p.record.seq);
      }
      chunk += p.line;
    }
    if (chunk) await this.writeChunk(chunk);
  }

  private async writeChunk(chunk: string): Promise<void> {
    if (!this.handle) this.handle = await open(this.segmentFile!, 'a');
    const buf = Buffer.from(chunk);
    await this.handle.write(buf);
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
        writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
        OPEN_HERE.add(file);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = readLockPid(file);
        const ours = pid === process.pid && !OPEN_HERE.has(file);
        if (pid !== null && !ours && alive(pid)) {
          throw new PanewardError(
            'data_dir_busy',
            `data directory ${file.slice(0, -'/lock'.length)} is in use by paneward pid ${pid} (choose another with --data-dir)`,
          );
        }
        // Left by a process that is gone: take it over.
        unlinkSync(file);
      }
    }
  }

  private unlock(): void {
    if (!this.lockFile) return;
    OPEN_HERE.delete(this.lockFile);
    if (readLockPid(this.lockFile) === process.pid) rmSync(this.lockFile, { force: true });
  }
}

/** Lock files held by journals open in this process. */
const OPEN_HERE = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
