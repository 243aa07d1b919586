import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { PanewardError } from '../errors.js';
import { JournalRecord } from '../schemas/record.js';
import { decodeLine } from './codec.js';

const SEGMENT = /^segment-(\d{12})\.jsonl$/;

/** The journal's folder inside a data directory. */
export function journalDir(dataDir: string): string {
  return join(dataDir, 'journal');
}

export function segmentName(firstSeq: number): string {
  return `segment-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

/** Segment files oldest first, with the first seq each one holds. */
export function listSegments(dir: string): Array<{ file: string; firstSeq: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ name, m: SEGMENT.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null)
    .map((e) => ({ file: join(dir, e.name), firstSeq: Number(e.m[1]) }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

/** A segment's intact records, and where its intact part ends. */
export interface SegmentScan {
  records: JournalRecord[];
  /** Bytes from the start of the file up to the end of the last intact line. */
  goodBytes: number;
  /** Bytes after that: a torn last line (a crash mid-write), to be cut off. */
  tornBytes: number;
}

/**
 * Reads one segment. A damaged or unfinished line at the very end is a torn write and is
 * reported in `tornBytes`; a damaged line with intact lines after it is corruption, and
 * throws naming the file and line (nothing is silently dropped).
 */
export function scanSegment(file: string): SegmentScan {
  const text = readFileSync(file, 'utf8');
  const records: JournalRecord[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    lineNo += 1;
    const end = nl < 0 ? text.length : nl;
    const decoded = nl < 0 ? null : decodeLine(text.slice(offset, end));
    const parsed = decoded === null ? null : JournalRecord.safeParse(decoded);
    if (!parsed?.success) {
      const rest = text.slice(nl < 0 ? text.length : nl + 1);
      if (rest.trim() === '') {
        const goodBytes = Buffer.byteLength(text.slice(0, offset));
        return { records, goodBytes, tornBytes: Buffer.byteLength(text) - goodBytes };
      }
      throw new PanewardError(
        'journal_corrupt',
        `${file}: line ${lineNo} is damaged and is followed by more records`,
        { details: parsed?.error?.issues },
      );
    }
    records.push(parsed.data);
    offset = end + 1;
  }
  return { records, goodBytes: Buffer.byteLength(text), tornBytes: 0 };
}

/**
 * Every intact record with `seq > afterSeq`, oldest first, read from the segments on disk
 * (a reader never needs the writer's lock). A torn last line is skipped.
 */
export function readRecords(
  dir: string,
  afterSeq = 0,
  filter: (r: JournalRecord) => boolean = () => true,
): JournalRecord[] {
  const segments = listSegments(dir);
  // The newest segment that starts at or before the first wanted seq, and everything after.
  let from = 0;
  for (let i = 0; i < segments.length; i++) if (segments[i]!.firstSeq <= afterSeq + 1) from = i;
  const out: JournalRecord[] = [];
  for (const seg of segments.slice(from)) {
    for (const r of scanSegment(seg.file).records) if (r.seq > afterSeq && filter(r)) out.push(r);
  }
  return out;
}

/** Size in bytes, 0 for a missing file. */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Reads the pid in a lock file, or null. */
export function readLockPid(file: string): number | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(32);
      const n = readSync(fd, buf, 0, 32, 0);
      const pid = Number(buf.subarray(0, n).toString('utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
