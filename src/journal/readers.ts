import { Observable, type Observer, type Subscription } from 'rxjs';
import type { JournalRecord } from '../schemas/record.js';
import { readSegments, type DamagedLine, type DuplicateLine } from './segments.js';

/** A range of seqs a reader asked for and does not get: dropped by retention, or on a damaged line. */
export interface RecordGap {
  from: number;
  to: number;
  reason: 'retention' | 'damaged';
}

/** Where acknowledged records can be read from. */
export interface RecordStore {
  /** The journal folder, or null for an in-memory journal. */
  readonly dir: string | null;
  /** The last acknowledged seq: nothing after it is handed to a reader. */
  readonly durable: number;
  /** The latest acknowledged records, oldest first. */
  readonly tail: readonly JournalRecord[];
  /** Every record of an in-memory journal. */
  readonly memory: readonly JournalRecord[];
  /** Told of the damaged and copied lines a read of the segments skipped. */
  readonly onRead?: (damaged: DamagedLine[], duplicates: DuplicateLine[]) => void;
}

/** Reads the segments, telling the store what was skipped. */
function readDisk(
  store: RecordStore & { dir: string },
  afterSeq: number,
  keep?: (r: JournalRecord) => boolean,
): { records: JournalRecord[]; damaged: DamagedLine[] } {
  const read = readSegments(store.dir, afterSeq, keep);
  store.onRead?.(read.damaged, read.duplicates);
  return read;
}

/** Acknowledged records with `seq > afterSeq` (optionally of one terminal), oldest first. */
export function readRecordsAfter(
  store: RecordStore,
  afterSeq: number,
  terminalId?: string,
): JournalRecord[] {
  const keep = (r: JournalRecord) =>
    r.seq > afterSeq &&
    r.seq <= store.durable &&
    (terminalId === undefined || r.terminalId === terminalId);
  if (store.dir === null) return store.memory.filter(keep);
  return readDisk({ ...store, dir: store.dir }, afterSeq, keep).records;
}

export interface ReadAfterOptions {
  terminalId?: string;
  limit?: number;
  onGap?: (gap: RecordGap) => void;
}

/**
 * At most `limit` acknowledged records after `afterSeq`, oldest first: from the tail when the
 * reader keeps up, else from disk; `onGap` is told of each range not there to read.
 */
export function readPage(
  store: RecordStore,
  afterSeq: number,
  options: ReadAfterOptions,
): JournalRecord[] {
  const limit = options.limit ?? Infinity;
  const keep = (r: JournalRecord) =>
    options.terminalId === undefined || r.terminalId === options.terminalId;
  const first = store.tail[0];
  let source: readonly JournalRecord[];
  let damaged: DamagedLine[] = [];
  if (first !== undefined && first.seq <= afterSeq + 1) source = store.tail;
  else if (store.dir === null) source = store.memory;
  else ({ records: source, damaged } = readDisk({ ...store, dir: store.dir }, afterSeq));
  const out: JournalRecord[] = [];
  let expected = afterSeq + 1;
  for (const r of source) {
    if (r.seq <= afterSeq || r.seq > store.durable) continue;
    // Each seq once, in order: a copy of a record already handed out is not handed out again.
    if (r.seq < expected) continue;
    if (r.seq > expected && options.onGap) {
      const hole = damaged.some((d) => d.seq !== null && d.seq >= expected && d.seq < r.seq);
      const retention = expected === afterSeq + 1 && source !== store.tail && !hole;
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

/**
 * What was acknowledged after `afterSeq` (`read`), then each record `live` acknowledges: live
 * records that arrive while the backlog is read are held and handed on after it, so there is
 * no gap and no duplicate between the two.
 */
export function followRecords(
  live: Observable<JournalRecord>,
  read: () => JournalRecord[],
  afterSeq: number,
  terminalId: string | undefined,
): Observable<JournalRecord> {
  return new Observable<JournalRecord>((sub) => {
    let last = afterSeq;
    let backlog: JournalRecord[] | null = [];
    const observer: Partial<Observer<JournalRecord>> = {
      next: (r) => {
        if (backlog) backlog.push(r);
        else if (r.seq > last) {
          last = r.seq;
          if (terminalId === undefined || r.terminalId === terminalId) sub.next(r);
        }
      },
      complete: () => sub.complete(),
    };
    const subscription: Subscription = live.subscribe(observer);
    try {
      for (const r of read()) {
        if (r.seq <= last) continue;
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
    return () => subscription.unsubscribe();
  });
}
