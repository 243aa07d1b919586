import { closeSync, constants, readSync } from 'node:fs';
import { JournalRecord } from '../schemas/record.js';
import { recordsInLine } from './codec.js';
import { openNoFollow } from './files.js';

/** A growable array of unsigned 32-bit integers. */
class U32List {
  data = new Uint32Array(64);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** The lines of one segment the journal remembers: where each starts, and whose it is. */
interface IndexedSegment {
  file: string;
  starts: U32List;
  /** Terminal of each line (an index into `RecentIndex.ids`; 0 for none). */
  owners: U32List;
  /** The end of the last indexed line. */
  end: number;
}

/**
 * Where each terminal's latest records are, without holding them: for a journal on disk, the
 * start of every record's line in the segments it keeps and the terminal it belongs to (8 bytes
 * a record); `recent` reads the lines back. The records themselves stay on disk, the durable
 * store, so what a terminal leaves in memory does not grow with the records it makes.
 */
export class RecentIndex {
  private readonly segments: IndexedSegment[] = [];
  /** Terminal ids by index (0 is no terminal). */
  private readonly ids: Array<string | null> = [null];
  private readonly idOf = new Map<string, number>();

  constructor(
    /** Segments kept on disk: older ones are dropped, as the writer drops their files. */
    private readonly retainSegments: number,
    /** Records with seq up to this one were read at open (validated as every reader does). */
    private readonly recoveredSeq: () => number,
  ) {}

  /** Notes a record's line: `start` and `bytes` in `file` (a segment). */
  add(terminalId: string | null, file: string, start: number, bytes: number): void {
    let seg = this.segments.at(-1);
    if (seg?.file !== file) {
      seg = { file, starts: new U32List(), owners: new U32List(), end: 0 };
      this.segments.push(seg);
      if (this.segments.length > this.retainSegments) {
        this.segments.splice(0, this.segments.length - this.retainSegments);
      }
    }
    let owner = 0;
    if (terminalId !== null) {
      owner = this.idOf.get(terminalId) ?? 0;
      if (owner === 0) {
        owner = this.ids.push(terminalId) - 1;
        this.idOf.set(terminalId, owner);
      }
    }
    seg.starts.push(start);
    seg.owners.push(owner);
    seg.end = start + bytes;
  }

  /**
   * The latest `limit` records of one terminal, oldest first, read from the segments (a
   * segment dropped by retention meanwhile is skipped).
   */
  recent(terminalId: string, limit: number): JournalRecord[] {
    const owner = this.idOf.get(terminalId);
    if (owner === undefined || limit <= 0) return [];
    const found: JournalRecord[] = [];
    for (let s = this.segments.length - 1; s >= 0 && found.length < limit; s--) {
      const seg = this.segments[s]!;
      let fd: number | null = null;
      try {
        for (let i = seg.owners.length - 1; i >= 0 && found.length < limit; i--) {
          if (seg.owners.data[i] !== owner) continue;
          fd ??= openNoFollow(seg.file, constants.O_RDONLY);
          const start = seg.starts.data[i]!;
          const end = i + 1 < seg.starts.length ? seg.starts.data[i + 1]! : seg.end;
          const r = this.readLine(fd, start, end);
          if (r) found.push(r);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      } finally {
        if (fd !== null) closeSync(fd);
      }
    }
    return found.reverse();
  }

  private readLine(fd: number, start: number, end: number): JournalRecord | null {
    const buf = Buffer.allocUnsafe(end - start);
    const n = readSync(fd, buf, 0, buf.length, start);
    // Bytes up to the newline; the record is the one that starts where its line was noted.
    const nl = buf.subarray(0, n).indexOf(0x0a);
    const piece = recordsInLine(buf.subarray(0, nl < 0 ? n : nl))[0];
    if (piece === undefined || piece.offset !== 0) return null;
    const decoded = piece.record;
    // As the record was handed out before: read back from its JSON when this process wrote it,
    // validated when it was read at open.
    return (decoded.seq as number) <= this.recoveredSeq()
      ? JournalRecord.parse(decoded)
      : (decoded as unknown as JournalRecord);
  }
}

/**
 * The latest `limit` records of one terminal among `records` (oldest first): an in-memory
 * journal keeps every record, so its recent ones are read from there.
 */
export function recentOf(
  records: readonly JournalRecord[],
  terminalId: string,
  limit: number,
): JournalRecord[] {
  const found: JournalRecord[] = [];
  for (let i = records.length - 1; i >= 0 && found.length < limit; i--) {
    if (records[i]!.terminalId === terminalId) found.push(records[i]!);
  }
  return found.reverse();
}
