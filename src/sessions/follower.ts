import { watch, type FSWatcher } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import {
  fileKind,
  NotRegularFile,
  openRegular,
  readAt,
  type FileKind,
} from '../profiles/record-files.js';
import {
  boundReason,
  type RecordEvent,
  type RecordPosition,
  type RecordReply,
  type SessionRecordReader,
} from '../profiles/session-record.js';
import { aroundReply, PieceReader } from './pieces.js';

/** What a follower reports. */
export type FollowerReport =
  | { type: 'events'; events: readonly RecordEvent[] }
  /**
   * The reply text of a piece (only with `replies`), reported before that piece's events: held
   * in memory for the turn's payload, never journaled.
   */
  | { type: 'reply'; reply: RecordReply }
  /** A piece the reader does not know: the follower has stopped. */
  | { type: 'unknown'; why: string; position: RecordPosition }
  /** The file was replaced (another inode) or cut short: it is read again from the start. */
  | { type: 'reset'; why: 'replaced' | 'truncated' }
  /**
   * A line longer than the cap (`maxLineBytes`), passed over unread: following goes on with the
   * line after it. `bytes` is its length when its end was there to see (`complete`), else the
   * bytes seen so far (its end is then passed over when it comes, with no second report).
   */
  | { type: 'skipped'; position: RecordPosition; bytes: number; complete: boolean; why: string }
  /**
   * The path is not a regular file (a FIFO, a device, a socket, a folder): it was not read, and
   * it is looked at again only to see it become one. Reported once for each thing found there.
   */
  | { type: 'refused'; file: string; kind: FileKind };

export interface FollowerOptions {
  file: string;
  reader: SessionRecordReader;
  report: (report: FollowerReport) => void;
  /** How often the file is looked at when no change was signalled, ms (default 500). */
  pollMs?: number;
  /** Byte offset (`jsonl`) to start at; default 0, the whole record. */
  fromOffset?: number;
  /**
   * Each piece as it is read, before the reader reads it: a complete line (`jsonl`) or the
   * whole document (`document`). `paneward record` writes them into the recording.
   */
  piece?: (piece: { file: string; offset: number; text: string }) => void;
  /** Ask the reader for each line's reply text too (a turn's payload; default false). */
  replies?: boolean;
  /** The longest line (`jsonl`, newline not counted) read, bytes (default 1 MiB). */
  maxLineBytes?: number;
  /** The longest document read, bytes (default 32 MiB): a longer one steps aside. */
  maxDocumentBytes?: number;
}

/** The longest line read by default (and so the most one read asks for). */
export const MAX_LINE_BYTES = 1 << 20;
/** The longest document read by default. */
export const MAX_DOCUMENT_BYTES = 32 << 20;
/** The most one read asks for where no line has to fit in it (a document, a skipped line). */
const CHUNK = 1 << 20;

/**
 * Follows one session record as the CLI writes it: through `fs.watch` on its folder (which sees
 * a file replaced by a rename, unlike a watch on the file) and a poll as the fallback where
 * inotify says nothing (network folders, a watch limit reached). For `jsonl` it reads only the
 * bytes appended since the last read and hands the reader complete lines only (a line still
 * being written waits for its newline); for `document` it reads the whole text when it changed
 * and passes on only the events it has not passed on yet. A file replaced (new inode) or
 * cut short is read again from the start. One unknown piece stops it for good.
 *
 * It never blocks and never reads without bound (docs/session-records.md): only a regular file
 * is opened, and that without blocking (`openRegular`); each read asks for at most a line's cap;
 * a line over the cap is passed over (`skipped`) and the next one read; a document over its cap
 * steps aside. A reason it passes on is bounded and holds none of the record's text.
 */
export class RecordFollower {
  private offset: number;
  private inode: number | null = null;
  private lastDocument: { size: number; mtimeMs: number } | null = null;
  private readonly pieces: PieceReader;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** What was refused at the path (reported once), while it is not a regular file. */
  private refused: { ino: number; kind: FileKind } | null = null;
  /** A line over the cap being passed over: where it starts, and whether it was reported. */
  private skipping: { start: number; reported: boolean } | null = null;
  private readonly maxLine: number;
  private readonly maxDocument: number;

  constructor(private readonly o: FollowerOptions) {
    this.maxLine = o.maxLineBytes ?? MAX_LINE_BYTES;
    this.maxDocument = o.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
    this.offset = o.fromOffset ?? 0;
    this.pieces = new PieceReader(o.reader, o.replies === true);
  }

  get file(): string {
    return this.o.file;
  }

  /** Bytes of the record consumed so far (`jsonl`). */
  get position(): number {
    return this.offset;
  }

  start(): void {
    try {
      this.watcher = watch(dirname(this.o.file), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(this.o.file)) void this.check();
      });
      this.watcher.on('error', () => this.closeWatcher());
    } catch {
      this.watcher = null; // the poll alone
    }
    this.timer = setInterval(() => void this.check(), this.o.pollMs ?? 500);
    this.timer.unref();
    void this.check();
  }

  stop(): void {
    this.stopped = true;
    this.closeWatcher();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads whatever changed; one read at a time (a change signalled meanwhile reads again). */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.readChanges().catch(() => undefined); // gone for now: the next look retries
      } while (this.again && !this.stopped);
      this.running = null;
    })();
    return this.running;
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private async readChanges(): Promise<void> {
    // `stat` never blocks and opens nothing: a FIFO, a device or a socket is refused unopened.
    const s = await stat(this.o.file);
    if (!s.isFile()) {
      this.refuse(s.ino, fileKind(s));
      return;
    }
    this.refused = null;
    if (this.inode !== null && s.ino !== this.inode) this.reset('replaced');
    else if (this.o.reader.kind === 'jsonl' && s.size < this.offset) this.reset('truncated');
    this.inode = s.ino;
    if (this.o.reader.kind === 'document') {
      if (this.lastDocument?.size === s.size && this.lastDocument.mtimeMs === s.mtimeMs) return;
    } else if (this.offset >= s.size) {
      return;
    }
    let opened;
    try {
      opened = await openRegular(this.o.file);
    } catch (e) {
      // Swapped for something else since `stat`: opened without blocking, and closed at once.
      if (e instanceof NotRegularFile) this.refuse(null, e.kind);
      else throw e;
      return;
    }
    const { handle, stats } = opened;
    try {
      // Replaced between `stat` and the open: the next look reads the new file from its start.
      if (stats.ino !== s.ino) {
        this.again = true;
        return;
      }
      if (this.o.reader.kind === 'document') await this.readDocument(handle, stats);
      else await this.readAppended(handle, stats.size);
    } finally {
      await handle.close();
    }
  }

  private refuse(ino: number | null, kind: FileKind): void {
    const was = this.refused;
    // The same thing still there (its inode unknown when it was found after the open).
    const same =
      was !== null && was.kind === kind && (ino === null || was.ino === -1 || was.ino === ino);
    this.refused = { ino: ino ?? (same ? was.ino : -1), kind };
    if (same) return;
    this.o.report({ type: 'refused', file: this.o.file, kind });
  }

  private reset(why: 'replaced' | 'truncated'): void {
    this.offset = 0;
    this.lastDocument = null;
    this.skipping = null;
    this.pieces.reset();
    this.o.report({ type: 'reset', why });
  }

  private async readAppended(handle: FileHandle, size: number): Promise<void> {
    while (!this.stopped && this.offset < size) {
      if (this.skipping) {
        if (!(await this.passOver(handle, size))) return;
        continue;
      }
      // A line of the most the cap allows, with its newline, fits in one read.
      const length = Math.min(this.maxLine + 1, size - this.offset);
      const buf = await readAt(handle, this.offset, length, length);
      if (buf.length === 0) return;
      const last = buf.lastIndexOf(0x0a);
      if (last < 0) {
        // No newline: a line still being written waits for it, unless it is over the cap.
        if (buf.length <= this.maxLine) return;
        this.skipping = { start: this.offset, reported: false };
        this.offset += buf.length;
        continue;
      }
      const events: RecordEvent[] = [];
      let start = 0;
      while (start <= last) {
        const end = buf.indexOf(0x0a, start);
        const line = buf.subarray(start, end).toString('utf8').replace(/\r$/, '');
        const position = { file: this.o.file, offset: this.offset + start };
        start = end + 1;
        if (line.trim() === '') continue;
        this.o.piece?.({ ...position, text: line });
        const reading = this.pieces.read(line, position);
        if ('unknown' in reading) {
          if (events.length > 0) this.o.report({ type: 'events', events });
          this.o.report({ type: 'unknown', why: boundReason(reading.unknown), position });
          this.stop();
          return;
        }
        const reply = this.pieces.reply(line);
        if (reply) {
          if (events.length > 0) this.o.report({ type: 'events', events: events.splice(0) });
          this.o.report({ type: 'reply', reply });
        }
        events.push(...reading.events);
      }
      this.offset += last + 1;
      if (events.length > 0) this.o.report({ type: 'events', events });
    }
  }

  /**
   * Reads on (a chunk at a time, nothing kept) to the end of the line being passed over. True
   * when its end was found (reading goes on with the next line), false when the file ends first.
   */
  private async passOver(handle: FileHandle, size: number): Promise<boolean> {
    const skip = this.skipping!;
    while (!this.stopped && this.offset < size) {
      const buf = await readAt(handle, this.offset, Math.min(CHUNK, size - this.offset), CHUNK);
      if (buf.length === 0) break;
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        this.offset += buf.length;
        continue;
      }
      this.offset += nl + 1;
      this.skipping = null;
      if (!skip.reported) this.reportSkip(skip.start, this.offset - 1 - skip.start, true);
      return true;
    }
    if (!skip.reported && !this.stopped) {
      skip.reported = true;
      this.reportSkip(skip.start, this.offset - skip.start, false);
    }
    return false;
  }

  private reportSkip(start: number, bytes: number, complete: boolean): void {
    const position = { file: this.o.file, offset: start };
    const length = complete ? `${bytes} bytes` : `more than ${bytes} bytes`;
    const why = `a line of ${length} at offset ${start}, over the ${this.maxLine}-byte cap: skipped`;
    this.o.report({ type: 'skipped', position, bytes, complete, why });
  }

  private async readDocument(
    handle: FileHandle,
    stats: { size: number; mtimeMs: number },
  ): Promise<void> {
    const { size, mtimeMs } = stats;
    const position = { file: this.o.file, offset: 0 };
    if (size > this.maxDocument) {
      // A document only grows: one over the cap is not read, now or later.
      const why = `a document of ${size} bytes, over the ${this.maxDocument}-byte cap`;
      this.o.report({ type: 'unknown', why, position });
      this.stop();
      return;
    }
    const text = (await readAt(handle, 0, size, CHUNK)).toString('utf8');
    // A document caught half written does not parse: the next change completes it.
    try {
      JSON.parse(text);
    } catch {
      return;
    }
    this.lastDocument = { size, mtimeMs };
    this.o.piece?.({ ...position, text });
    const reading = this.pieces.read(text, position);
    if ('unknown' in reading) {
      this.o.report({ type: 'unknown', why: boundReason(reading.unknown), position });
      this.stop();
      return;
    }
    const reply = this.pieces.reply(text);
    const [before, after] = aroundReply(reading.events, reply);
    if (before.length > 0) this.o.report({ type: 'events', events: [...before] });
    if (reply) this.o.report({ type: 'reply', reply });
    if (after.length > 0) this.o.report({ type: 'events', events: [...after] });
  }
}
