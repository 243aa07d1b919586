import { performance } from 'node:perf_hooks';
import {
  BehaviorSubject,
  Subject,
  asyncScheduler,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { PanewardError } from '../errors.js';
import { RECORD_FORMAT, type JournalRecord, type RecordDraft } from '../schemas/record.js';
import { lineOfJson } from './codec.js';
import { writeFailure, type JournalFailure } from './health.js';
import { releaseLock } from './lock.js';
import { openJournalDir, type JournalIntegrity, type JournalOptions } from './open.js';
import {
  followRecords,
  readPage,
  readRecordsAfter,
  type RecordGap,
  type RecordStore,
} from './readers.js';
import { recentOf, type RecentIndex } from './recent.js';
import { RestoreIndex } from './restore.js';
import type { DamagedLine, DuplicateLine } from './segments.js';
import type { SegmentWriter } from './writer.js';

export type { JournalFailure } from './health.js';
export type { RecordGap } from './readers.js';
export type { JournalIntegrity, JournalOptions } from './open.js';

interface Pending {
  record: JournalRecord;
  /** `performance.now()` at append. */
  since: number;
  line: string;
  /** The line's length in bytes. */
  bytes: number;
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
 * being written form the next batch (group commit). Offsets are counted on raw bytes and each
 * line is checked on its own, so damage stays in its line. A torn last line left by a crash is
 * cut off on open, nothing before it lost, and the next record starts on a fresh line; a damaged
 * complete line is skipped, reported in `damaged` (and counted in `integrity`), and its seq is
 * never handed out again; a copy of a record already read is skipped (each seq is handed out
 * once). No journal file is opened through a symbolic link. A segment past `segmentBytes` is closed and the next
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
  /** Copies of records opening found (a seq already read: skipped), with file and line. */
  readonly duplicates: DuplicateLine[] = [];
  /** Damaged and copied lines found at open and by reads since, by file and line. */
  private readonly seenDamaged = new Set<string>();
  private readonly seenDuplicates = new Set<string>();
  private readonly subject = new Subject<JournalRecord>();
  private readonly healthSubject = new BehaviorSubject<JournalFailure | null>(null);
  private readonly scheduler: SchedulerLike;
  private readonly dir: string | null;
  private readonly segmentBytes: number;
  private readonly recentLimit: number;
  private readonly onAck: ((latencyMs: number) => void) | undefined;
  private readonly probeMs: number;
  /** Where each terminal's latest records are on disk (null in memory: `memory` has them). */
  private readonly recentIndex: RecentIndex | null = null;
  /** Every record of an in-memory journal. */
  private readonly memory: JournalRecord[] = [];
  /** The latest acknowledged records, oldest first (a window readers that keep up are served from). */
  private readonly tail: JournalRecord[] = [];
  private readonly tailSize: number;
  private seq: number;
  private durable: number;
  private pending: Pending[] = [];
  private draining: Promise<void> | null = null;
  private readonly writer: SegmentWriter | null = null;
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
    const opened = openJournalDir(options.dataDir, options, this.index);
    this.dir = opened.dir;
    this.lockFile = opened.lockFile;
    this.recentIndex = opened.recentIndex;
    this.damaged.push(...opened.damaged);
    this.duplicates.push(...opened.duplicates);
    this.noteRead(opened.damaged, opened.duplicates);
    this.seq = opened.lastSeq;
    this.durable = opened.lastSeq;
    this.assignedBytes = opened.segmentSize;
    this.writer = opened.writer;
    this.repairedBytes = opened.repairedBytes;
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

  /** What the journal found wrong with its files so far (see {@link JournalIntegrity}). */
  get integrity(): JournalIntegrity {
    return {
      damagedLines: this.seenDamaged.size,
      duplicateLines: this.seenDuplicates.size,
      repairedBytes: this.repairedBytes,
    };
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
    return readRecordsAfter(this.store, afterSeq, terminalId);
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
    return readPage(this.store, afterSeq, options);
  }

  /**
   * The latest acknowledged records of one terminal (at most `recentPerTerminal`, since the
   * journal was opened: its newest checkpoint on), oldest first. A journal on disk reads them
   * back from its segments; in memory they are not held a second time.
   */
  recent(terminalId: string, limit?: number): JournalRecord[] {
    const n = Math.min(this.recentLimit, limit ?? Infinity);
    // Stryker disable next-line ConditionalExpression: an in-memory journal has no index
    if (this.recentIndex === null) return recentOf(this.memory, terminalId, n);
    return this.recentIndex.recent(terminalId, n);
  }

  /**
   * Every acknowledged record with `seq > afterSeq`, then each new one as it is acknowledged:
   * no gap and no duplicate between what was on disk and what comes live.
   */
  follow(afterSeq = 0, terminalId?: string): Observable<JournalRecord> {
    return followRecords(this.subject, () => this.read(afterSeq, terminalId), afterSeq, terminalId);
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
      await this.writer?.close();
      this.unlock();
      this.subject.complete();
      this.healthSubject.complete();
    }
  }

  private enqueue(draft: RecordDraft, rotate: boolean): Promise<JournalRecord> {
    this.seq += 1;
    const json = JSON.stringify({
      v: RECORD_FORMAT,
      seq: this.seq,
      at: new Date(this.scheduler.now()).toISOString(),
      ...draft,
    });
    // The record kept (in the recent lists, the tail, the index) is read back from its line:
    // it shares no string with the screen it was made from. A reason cut out of a screen is a
    // slice that keeps the whole screen alive, so every remembered record would hold a screen
    // of its own; and it is what a reader of the files gets.
    const record = JSON.parse(json) as JournalRecord;
    this.index.apply(record);
    // Only a journal on disk writes the line (and counts its bytes toward the segment's size).
    const line = this.dir === null ? '' : lineOfJson(json);
    const bytes = line.length === 0 ? 0 : Buffer.byteLength(line);
    this.assignedBytes += bytes;
    return new Promise<JournalRecord>((resolve, reject) => {
      this.pending.push({ record, line, bytes, rotate, since: performance.now(), resolve, reject });
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
            const at = this.writer ? await this.write(this.writer, chunk) : null;
            done = end;
            this.acknowledge(chunk, at);
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

  /** A chunk is durable; `at` is where its lines were written (null in memory). */
  private acknowledge(chunk: Pending[], at: { file: string; start: number } | null): void {
    const acked = performance.now();
    let start = at?.start ?? 0;
    for (const p of chunk) {
      this.onAck?.(acked - p.since);
      this.durable = p.record.seq;
      if (at) this.recentIndex?.add(p.record.terminalId, at.file, start, p.bytes);
      start += p.bytes;
      this.tail.push(p.record);
      if (this.tail.length > this.tailSize) this.tail.splice(0, this.tail.length - this.tailSize);
      if (this.dir === null) this.memory.push(p.record);
      this.subject.next(p.record);
      p.resolve(p.record);
    }
  }

  /** A chunk of records that begins a segment when its first one is a checkpoint. */
  private write(writer: SegmentWriter, chunk: Pending[]): Promise<{ file: string; start: number }> {
    const first = chunk[0]!;
    return writer.write(chunk.map((p) => p.line).join(''), first.record.seq, first.rotate);
  }

  /**
   * A write failed: what it left of the chunk is cut off the segment, the records not written
   * are rejected and their seqs handed out again (none was acknowledged), and the probe starts.
   */
  private fail(error: unknown, rejected: Pending[]): void {
    this.failed = writeFailure(error, this.dir);
    this.seq = this.durable;
    try {
      this.writer?.cutBack();
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
      this.writer?.probe();
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

  private unlock(): void {
    if (this.lockFile) releaseLock(this.lockFile);
  }

  /** Counts the damaged and copied lines a read skipped (each file and line once). */
  private noteRead(damaged: readonly DamagedLine[], duplicates: readonly DuplicateLine[]): void {
    for (const d of damaged) this.seenDamaged.add(`${d.file}:${d.line}`);
    for (const d of duplicates) this.seenDuplicates.add(`${d.file}:${d.line}:${d.seq}`);
  }

  /** What the readers read from. */
  private get store(): RecordStore {
    return {
      dir: this.dir,
      durable: this.durable,
      tail: this.tail,
      memory: this.memory,
      onRead: (damaged, duplicates) => this.noteRead(damaged, duplicates),
    };
  }
}
