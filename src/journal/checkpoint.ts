import { closeSync, constants, fdatasyncSync, ftruncateSync, writeSync } from 'node:fs';
import type { JournalRecord } from '../schemas/record.js';
import { openNoFollow } from './files.js';
import {
  listSegments,
  scanSegment,
  tightenSegment,
  type DamagedLine,
  type DuplicateLine,
  type SegmentScan,
} from './segments.js';

/** What opening a journal directory found. */
export interface Recovered {
  /** The highest seq on disk (claimed by a damaged line included), 0 for none. */
  lastSeq: number;
  /** The newest segment, to append to, or null. */
  segmentFile: string | null;
  /** Its intact size in bytes (it ends with a newline, or is empty). */
  segmentSize: number;
  /** Bytes of a torn last line cut off. */
  repairedBytes: number;
  damaged: DamagedLine[];
  duplicates: DuplicateLine[];
}

/**
 * Opens a journal directory: tightens its segments' modes, mends a torn last line of the newest
 * segment, and hands every record from the newest intact checkpoint on to `apply`, oldest first,
 * each seq once. When the newest segment's checkpoint is torn (or missing), the segments before
 * it are read back to one that has it.
 *
 * A torn last line (bytes after the last newline: a crash mid-write) is cut off, so the next
 * record appended starts on a line of its own and is never glued to what a crash left. When the
 * torn line still holds an intact record (only its newline is missing or damaged), the record is
 * kept and given its newline; only the bytes after it are cut.
 */
export function recover(
  dir: string,
  apply: (r: JournalRecord, line: { file: string; start: number; bytes: number }) => void,
): Recovered {
  const segments = listSegments(dir);
  const last = segments.at(-1);
  if (!last) {
    return {
      lastSeq: 0,
      segmentFile: null,
      segmentSize: 0,
      repairedBytes: 0,
      damaged: [],
      duplicates: [],
    };
  }
  // Read back to the newest intact checkpoint (the last segment first: it is the one mended).
  const scans: Array<SegmentScan & { file: string }> = [];
  const lastScan = scanSegment(last.file, { tornRecords: true, tighten: true });
  scans.push({ ...lastScan, file: last.file });
  for (let i = segments.length - 2; i >= 0 && !startsWithCheckpoint(scans[0]!); i--) {
    const file = segments[i]!.file;
    scans.unshift({ ...scanSegment(file, { tornRecords: true, tighten: true }), file });
  }
  const older = segments.slice(0, Math.max(0, segments.length - scans.length));
  for (const seg of older) tightenSegment(seg.file);
  let repairedBytes = 0;
  let segmentSize = lastScan.goodBytes;
  if (lastScan.tornBytes > 0) {
    const keep = lastScan.tornKeep ?? lastScan.goodBytes;
    const fd = openNoFollow(last.file, constants.O_RDWR);
    try {
      ftruncateSync(fd, keep);
      segmentSize = keep;
      if (lastScan.tornKeep !== null) {
        writeSync(fd, '\n', keep);
        segmentSize = keep + 1;
      }
      // Mended before anything is appended after it.
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    repairedBytes = lastScan.goodBytes + lastScan.tornBytes - keep;
  }
  // Seqs are taken once over all the segments read, in order: a record copied into a later
  // segment (or a later line) is applied once.
  let lastRecord = 0;
  let lastSeq = 0;
  const damaged: DamagedLine[] = [];
  const duplicates: DuplicateLine[] = [];
  for (const sc of scans) {
    sc.records.forEach((r, i) => {
      if (r.seq <= lastRecord) {
        duplicates.push({ file: sc.file, line: sc.lines[i]!, seq: r.seq });
        return;
      }
      lastRecord = r.seq;
      apply(r, { file: sc.file, start: sc.starts[i]!, bytes: sc.lengths[i]! + 1 });
    });
    damaged.push(...sc.damaged);
    duplicates.push(...sc.duplicates);
    lastSeq = Math.max(lastSeq, sc.highestSeq ?? 0);
  }
  lastSeq = Math.max(lastSeq, last.firstSeq - 1);
  return {
    lastSeq,
    segmentFile: last.file,
    segmentSize,
    repairedBytes,
    damaged,
    duplicates,
  };
}

function startsWithCheckpoint(scan: SegmentScan): boolean {
  return scan.records[0]?.kind === 'checkpoint';
}
