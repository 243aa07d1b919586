import { join } from 'node:path';
import type { SchedulerLike } from 'rxjs';
import { recover } from './checkpoint.js';
import { privateDir, refuseLink, startupError } from './files.js';
import { acquireLock, releaseLock } from './lock.js';
import { RecentIndex } from './recent.js';
import type { RestoreIndex } from './restore.js';
import { journalDir, type DamagedLine, type DuplicateLine } from './segments.js';
import { SegmentWriter } from './writer.js';

/**
 * What the journal found wrong with its files, as counts: damaged lines skipped (at open and by
 * every read since), intact copies of records skipped so each is delivered once, and the bytes of
 * a torn last line cut off at open.
 */
export interface JournalIntegrity {
  damagedLines: number;
  duplicateLines: number;
  repairedBytes: number;
}

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
  /** Records `recent()` answers per terminal at most; default 500. */
  recentPerTerminal?: number;
  /** Told how long each record took from append to acknowledgement, in ms. */
  onAck?: (latencyMs: number) => void;
  /** The latest acknowledged records kept in memory for readers that follow closely; default 10000. */
  tailSize?: number;
  /** While the journal cannot write, how often it checks whether it can again, in ms; default 1000. */
  probeMs?: number;
}

/** A journal on disk as opening left it: locked, its segments recovered, its writer ready. */
export interface OpenedJournal {
  /** The journal folder. */
  dir: string;
  lockFile: string;
  recentIndex: RecentIndex;
  /** The last seq the segments hold. */
  lastSeq: number;
  /** The size of the segment the writer goes on with, in bytes. */
  segmentSize: number;
  writer: SegmentWriter;
  /** A torn last line cut off, in bytes. */
  repairedBytes: number;
  damaged: DamagedLine[];
  duplicates: DuplicateLine[];
}

/**
 * Opens the journal of a data directory: makes its folders (private, never through a link),
 * takes the lock, and recovers the segments, each record into `index` and the recent index.
 * The lock is released again when recovery fails.
 */
export function openJournalDir(
  dataDir: string,
  options: JournalOptions,
  index: RestoreIndex,
): OpenedJournal {
  const dir = journalDir(dataDir);
  const lockFile = join(dataDir, 'lock');
  try {
    privateDir(dataDir);
    // The data directory may be a link the user made; what is inside it is never followed.
    refuseLink(dir);
    privateDir(dir);
    acquireLock(lockFile);
  } catch (error) {
    throw startupError(dataDir, error);
  }
  const retain = Math.max(2, options.retainSegments ?? 16);
  let recoveredSeq = 0;
  const recentIndex = new RecentIndex(retain, () => recoveredSeq);
  try {
    const found = recover(dir, (r, line) => {
      index.apply(r);
      recentIndex.add(r.terminalId, line.file, line.start, line.bytes);
    });
    recoveredSeq = found.lastSeq;
    const writer = new SegmentWriter(dir, retain, options.fsync ?? true, {
      file: found.segmentFile,
      size: found.segmentSize,
    });
    return {
      dir,
      lockFile,
      recentIndex,
      lastSeq: found.lastSeq,
      segmentSize: found.segmentSize,
      writer,
      repairedBytes: found.repairedBytes,
      damaged: found.damaged,
      duplicates: found.duplicates,
    };
  } catch (error) {
    releaseLock(lockFile);
    throw startupError(dataDir, error);
  }
}
