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

/** A line that is not an intact record, with intact lines (or a newline) after it. */
export interface DamagedLine {
  file: string;
  /** 1-based line number in the file. */
  line: number;
  /** The seq the line claims, if it can still be read (nothing else in it is trusted). */
  seq: number | null;
}

/** A segment's intact records, and where its intact part ends. */
export interface SegmentScan {
  records: JournalRecord[];
  /** Where each record's line starts, in bytes (parallel to `records`). */
  starts: number[];
  /** Bytes from the start of the file up to the end of the last complete line. */
  goodBytes: number;
  /** Bytes after that: an unfinished last line (a crash or a full disk mid-write), to be cut off. */
  tornBytes: number;
  /** Complete lines that are not intact records: skipped, kept on disk, reported. */
  damaged: DamagedLine[];
  /** The highest seq the segment holds or claims (damaged lines included), or null. */
  highestSeq: number | null;
}

const CLAIMED_SEQ = /^\{"v":\d+,"seq":(\d+),/;

/**
 * Reads one segment. An unfinished last line (no newline) is a torn write and is reported in
 * `tornBytes`. A complete line that is not an intact record is damage: it is skipped and
 * reported with its file and line, and the records around it stay readable; its seq (read
 * from the line when possible) still counts as used, so it is never handed out again.
 */
export function scanSegment(file: string): SegmentScan {
  const text = readFileSync(file, 'utf8');
  const records: JournalRecord[] = [];
  const starts: number[] = [];
  const damaged: DamagedLine[] = [];
  let highestSeq: number | null = null;
  let offset = 0;
  let byteOffset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) {
      const goodBytes = Buffer.byteLength(text.slice(0, offset));
      return {
        records,
        starts,
        goodBytes,
        tornBytes: Buffer.byteLength(text) - goodBytes,
        damaged,
        highestSeq,
      };
    }
    lineNo += 1;
    const raw = text.slice(offset, nl);
    offset = nl + 1;
    const start = byteOffset;
    byteOffset += Buffer.byteLength(raw) + 1;
    const decoded = decodeLine(raw);
    const parsed = decoded === null ? null : JournalRecord.safeParse(decoded);
    if (parsed?.success) {
      records.push(parsed.data);
      starts.push(start);
      highestSeq = Math.max(highestSeq ?? 0, parsed.data.seq);
      continue;
    }
    if (raw.trim() === '') continue;
    const claimed = CLAIMED_SEQ.exec(raw);
    // One record per line: a damaged line used at least the seq after the one before it.
    const seq = claimed ? Number(claimed[1]) : highestSeq === null ? null : highestSeq + 1;
    if (seq !== null) highestSeq = Math.max(highestSeq ?? 0, seq);
    damaged.push({ file, line: lineNo, seq });
  }
  return { records, starts, goodBytes: byteOffset, tornBytes: 0, damaged, highestSeq };
}

/** What a read of the segments found: intact records, and the lines it skipped. */
export interface ReadResult {
  records: JournalRecord[];
  damaged: DamagedLine[];
}

/**
 * Every intact record with `seq > afterSeq`, oldest first, read from the segments on disk
 * (a reader never needs the writer's lock). A torn last line is skipped; damaged lines are
 * skipped and listed in `damaged` (with file and line).
 */
export function readSegments(
  dir: string,
  afterSeq = 0,
  filter: (r: JournalRecord) => boolean = () => true,
): ReadResult {
  const segments = listSegments(dir);
  // The newest segment that starts at or before the first wanted seq, and everything after.
  let from = 0;
  for (let i = 0; i < segments.length; i++) if (segments[i]!.firstSeq <= afterSeq + 1) from = i;
  const records: JournalRecord[] = [];
  const damaged: DamagedLine[] = [];
  for (const seg of segments.slice(from)) {
    let scan: SegmentScan;
    try {
      scan = scanSegment(seg.file);
    } catch (error) {
      // Dropped by retention between listing and reading.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const r of scan.records) if (r.seq > afterSeq && filter(r)) records.push(r);
    for (const d of scan.damaged) if (d.seq === null || d.seq > afterSeq) damaged.push(d);
  }
  return { records, damaged };
}

/** `readSegments` without the report: every intact record with `seq > afterSeq`, oldest first. */
export function readRecords(
  dir: string,
  afterSeq = 0,
  filter: (r: JournalRecord) => boolean = () => true,
): JournalRecord[] {
  return readSegments(dir, afterSeq, filter).records;
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
  return readLock(file)?.pid ?? null;
}

/**
 * A lock file's writer: its pid, and the start time of that process as the kernel counts it
 * (`/proc/<pid>/stat`, field 22), null where the lock does not say (written elsewhere, or
 * without `/proc`).
 */
export function readLock(file: string): { pid: number; started: string | null } | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64);
      const n = readSync(fd, buf, 0, 64, 0);
      const [first, second] = buf.subarray(0, n).toString('utf8').split('\n');
      const pid = Number(first?.trim());
      if (!Number.isInteger(pid) || pid <= 0) return null;
      const started = second?.trim();
      return { pid, started: started ? started : null };
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** When a process started (`/proc/<pid>/stat` field 22, clock ticks since boot), or null. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
