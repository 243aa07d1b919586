import { closeSync, ftruncateSync, openSync } from 'node:fs';
import type { JournalRecord } from '../schemas/record.js';
import { privateFile } from './files.js';
import { listSegments, scanSegment, type DamagedLine, type SegmentScan } from './segments.js';

/** What opening a journal directory found. */
export interface Recovered {
  /** The highest seq on disk (claimed by a damaged line included), 0 for none. */
  lastSeq: number;
  /** The newest segment, to append to, or null. */
  segmentFile: string | null;
  /** Its intact size in bytes. */
  segmentSize: number;
  /** Bytes of a torn last line cut off. */
  repairedBytes: number;
  damaged: DamagedLine[];
}

/**
 * Opens a journal directory: tightens its segments' modes, cuts a torn last line off the newest
 * segment, and hands every record from the newest intact checkpoint on to `apply`, oldest first.
 * When the newest segment's checkpoint is torn (or missing), the segments before it are read
 * back to one that has it.
 */
export function recover(
  dir: string,
  apply: (r: JournalRecord, line: { file: string; start: number; bytes: number }) => void,
): Recovered {
  const segments = listSegments(dir);
  for (const seg of segments) privateFile(seg.file);
  const last = segments.at(-1);
  if (!last)
    return { lastSeq: 0, segmentFile: null, segmentSize: 0, repairedBytes: 0, damaged: [] };
  let repairedBytes = 0;
  const scan = scanSegment(last.file);
  if (scan.tornBytes > 0) {
    const fd = openSync(last.file, 'r+');
    try {
      ftruncateSync(fd, scan.goodBytes);
    } finally {
      closeSync(fd);
    }
    repairedBytes = scan.tornBytes;
  }
  const scans: Array<SegmentScan & { file: string }> = [{ ...scan, file: last.file }];
  for (let i = segments.length - 2; i >= 0 && !startsWithCheckpoint(scans[0]!); i--) {
    scans.unshift({ ...scanSegment(segments[i]!.file), file: segments[i]!.file });
  }
  let lastSeq = 0;
  const damaged: DamagedLine[] = [];
  for (const sc of scans) {
    sc.records.forEach((r, i) => {
      const start = sc.starts[i]!;
      const end = i + 1 < sc.starts.length ? sc.starts[i + 1]! : sc.goodBytes;
      apply(r, { file: sc.file, start, bytes: end - start });
    });
    damaged.push(...sc.damaged);
    lastSeq = Math.max(lastSeq, sc.highestSeq ?? 0);
  }
  lastSeq = Math.max(lastSeq, last.firstSeq - 1);
  return { lastSeq, segmentFile: last.file, segmentSize: scan.goodBytes, repairedBytes, damaged };
}

function startsWithCheckpoint(scan: SegmentScan): boolean {
  return scan.records[0]?.kind === 'checkpoint';
}
