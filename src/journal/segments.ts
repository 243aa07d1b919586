import {
  closeSync,
  constants,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { PanewardError } from '../errors.js';
import { JournalRecord } from '../schemas/record.js';
import { recordsInLine } from './codec.js';
import { linkRefused, openNoFollow, privateFd, refuseLink } from './files.js';

const SEGMENT = /^segment-(\d{12,})\.jsonl$/;

/** The journal's folder inside a data directory. */
export function journalDir(dataDir: string): string {
  return join(dataDir, 'journal');
}

export function segmentName(firstSeq: number): string {
  return `segment-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

/**
 * Segment files oldest first, with the first seq each one holds. The journal folder and every
 * segment must be the things themselves: a symbolic link (or a segment that is not a regular
 * file) is refused with an error naming it, and so are two segments that claim the same first
 * seq (a copy under a longer name).
 */
export function listSegments(dir: string): Array<{ file: string; firstSeq: number }> {
  refuseLink(dir);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: Array<{ file: string; firstSeq: number }> = [];
  for (const e of entries) {
    const m = SEGMENT.exec(e.name);
    if (!m) continue;
    const file = join(dir, e.name);
    if (e.isSymbolicLink()) throw linkRefused(file);
    if (!e.isFile()) {
      throw new PanewardError('journal_corrupt', `${file} is not a regular file; remove it`);
    }
    found.push({ file, firstSeq: Number(m[1]) });
  }
  found.sort((a, b) => a.firstSeq - b.firstSeq);
  for (let i = 1; i < found.length; i++) {
    if (found[i]!.firstSeq === found[i - 1]!.firstSeq) {
      throw new PanewardError(
        'journal_corrupt',
        `${found[i - 1]!.file} and ${found[i]!.file} are two segments starting at the same record; remove the one that is a copy`,
      );
    }
  }
  return found;
}

/** A line that is not an intact record, with intact lines (or a newline) after it. */
export interface DamagedLine {
  file: string;
  /** 1-based line number in the file. */
  line: number;
  /** The seq the line claims, if it can still be read (nothing else in it is trusted). */
  seq: number | null;
}

/** An intact record whose seq was already read: a copy, skipped so it is delivered once. */
export interface DuplicateLine {
  file: string;
  /** 1-based line number in the file. */
  line: number;
  seq: number;
}

/** A segment's intact records, and where its intact part ends. */
export interface SegmentScan {
  records: JournalRecord[];
  /** Where each record starts in the file, in bytes (parallel to `records`). */
  starts: number[];
  /** How many bytes each record takes, its newline not counted (parallel to `records`). */
  lengths: number[];
  /** The 1-based line each record is on (parallel to `records`). */
  lines: number[];
  /** Bytes from the start of the file up to the end of the last complete line. */
  goodBytes: number;
  /** Bytes after that: an unfinished last line (a crash or a full disk mid-write), to be cut off. */
  tornBytes: number;
  /**
   * Where the last intact record in the unfinished last line ends (a record whose newline was
   * not written, or was damaged), in bytes from the start of the file; null when it holds none.
   */
  tornKeep: number | null;
  /** Complete lines that are not intact records: skipped, kept on disk, reported. */
  damaged: DamagedLine[];
  /** Intact records whose seq was already read (a copied line): skipped, reported. */
  duplicates: DuplicateLine[];
  /** The highest seq the segment holds or claims (damaged lines included), or null. */
  highestSeq: number | null;
  /** The highest seq of an intact record read so far (this segment and the ones before it). */
  lastRecordSeq: number;
}

const CLAIMED_SEQ = /^\{"v":\d+,"seq":(\d+),/;

/** How a scan treats an unfinished last line. */
export interface ScanOptions {
  /** The highest seq of an intact record read before this segment: records up to it are copies. */
  afterRecord?: number;
  /**
   * Read intact records out of an unfinished last line: at open (nothing is writing) and for a
   * segment that is no longer written to, never for the newest one while a writer may be mid-line.
   */
  tornRecords?: boolean;
  /** Tighten the file to 0600 while it is open (at open, by the writer). */
  tighten?: boolean;
}

/** Tightens a segment to 0600, opened without following a link in its place. */
export function tightenSegment(file: string): void {
  const fd = openNoFollow(file, constants.O_RDONLY);
  try {
    privateFd(fd);
  } finally {
    closeSync(fd);
  }
}

/** A segment's bytes, read without following a link in its place. */
export function readSegmentFile(file: string, tighten = false): Buffer {
  const fd = openNoFollow(file, constants.O_RDONLY);
  try {
    if (tighten) privateFd(fd);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads one segment. Offsets are counted on the raw bytes: the file is split on newline bytes
 * (0x0A) and each line is checked and decoded on its own, so a damaged byte (one that is not
 * UTF-8 included) touches its own line only. An unfinished last line (no newline) is a torn write
 * and is reported in `tornBytes`. A complete line that is not an intact record is damage: it is
 * skipped and reported with its file and line, and the records around it stay readable (a record
 * whose newline was damaged is still found inside the line it was glued to); its seq (read from
 * the line when possible) still counts as used, so it is never handed out again. An intact
 * record whose seq was already read is a copy: skipped and reported in `duplicates`.
 */
export function scanSegment(file: string, options: ScanOptions = {}): SegmentScan {
  return scanBytes(file, readSegmentFile(file, options.tighten), options);
}

/** {@link scanSegment} of bytes already read. */
export function scanBytes(file: string, buf: Buffer, options: ScanOptions = {}): SegmentScan {
  const scan: SegmentScan = {
    records: [],
    starts: [],
    lengths: [],
    lines: [],
    goodBytes: 0,
    tornBytes: 0,
    tornKeep: null,
    damaged: [],
    duplicates: [],
    highestSeq: null,
    lastRecordSeq: options.afterRecord ?? 0,
  };
  let offset = 0;
  let lineNo = 0;
  while (offset < buf.length) {
    const nl = buf.indexOf(0x0a, offset);
    const end = nl < 0 ? buf.length : nl;
    const line = buf.subarray(offset, end);
    lineNo += 1;
    if (nl < 0) {
      scan.goodBytes = offset;
      scan.tornBytes = buf.length - offset;
      if (options.tornRecords) {
        const pieces = recordsInLine(line);
        for (const piece of pieces) take(scan, file, lineNo, offset, piece);
        const lastPiece = pieces.at(-1);
        if (lastPiece) scan.tornKeep = offset + lastPiece.offset + lastPiece.bytes;
      }
      return scan;
    }
    const pieces = recordsInLine(line);
    let covered = 0;
    for (const piece of pieces) {
      if (take(scan, file, lineNo, offset, piece)) covered += piece.bytes;
    }
    if (covered < line.length && !isBlank(line)) {
      // What of the line is not an intact record: its claimed seq, read from where it starts.
      const rest = pieces.length === 0 ? line : uncovered(line, pieces);
      const claimed = CLAIMED_SEQ.exec(rest.toString('latin1', 0, 64));
      // One record per line: a damaged line used at least the seq after the one before it.
      const seq = claimed
        ? Number(claimed[1])
        : scan.highestSeq === null
          ? null
          : scan.highestSeq + 1;
      if (seq !== null) scan.highestSeq = Math.max(scan.highestSeq ?? 0, seq);
      scan.damaged.push({ file, line: lineNo, seq });
    }
    offset = nl + 1;
  }
  scan.goodBytes = offset;
  return scan;
}

/**
 * Takes one intact record found at `lineStart + piece.offset`: a record, a copy of one already
 * read (reported, skipped), or not a record at all (false: it counts as damage).
 */
function take(
  scan: SegmentScan,
  file: string,
  lineNo: number,
  lineStart: number,
  piece: { record: Record<string, unknown>; offset: number; bytes: number },
): boolean {
  const parsed = JournalRecord.safeParse(piece.record);
  if (!parsed.success) return false;
  const r = parsed.data;
  scan.highestSeq = Math.max(scan.highestSeq ?? 0, r.seq);
  if (r.seq <= scan.lastRecordSeq) {
    scan.duplicates.push({ file, line: lineNo, seq: r.seq });
    return true;
  }
  scan.lastRecordSeq = r.seq;
  scan.records.push(r);
  scan.starts.push(lineStart + piece.offset);
  scan.lengths.push(piece.bytes);
  scan.lines.push(lineNo);
  return true;
}

function isBlank(line: Buffer): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/** The first part of a line no intact record covers. */
function uncovered(line: Buffer, pieces: Array<{ offset: number; bytes: number }>): Buffer {
  let at = 0;
  for (const p of pieces) {
    if (p.offset > at) return line.subarray(at, p.offset);
    at = p.offset + p.bytes;
  }
  return line.subarray(at);
}

/** What a read of the segments found: intact records, and the lines it skipped. */
export interface ReadResult {
  records: JournalRecord[];
  damaged: DamagedLine[];
  duplicates: DuplicateLine[];
}

/**
 * Every intact record with `seq > afterSeq`, oldest first, read from the segments on disk
 * (a reader never needs the writer's lock), each seq once. A torn last line of the newest
 * segment is skipped (a writer may be in the middle of it); damaged lines are skipped and listed
 * in `damaged` (with file and line), copies of records already read in `duplicates`.
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
  const duplicates: DuplicateLine[] = [];
  let lastRecord = 0;
  for (let i = from; i < segments.length; i++) {
    const seg = segments[i]!;
    let scan: SegmentScan;
    try {
      scan = scanSegment(seg.file, {
        afterRecord: lastRecord,
        tornRecords: i < segments.length - 1,
      });
    } catch (error) {
      // Dropped by retention between listing and reading.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    lastRecord = scan.lastRecordSeq;
    for (const r of scan.records) if (r.seq > afterSeq && filter(r)) records.push(r);
    for (const d of scan.damaged) if (d.seq === null || d.seq > afterSeq) damaged.push(d);
    for (const d of scan.duplicates) if (d.seq > afterSeq) duplicates.push(d);
  }
  return { records, damaged, duplicates };
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
