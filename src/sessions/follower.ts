import { watch, type FSWatcher } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type {
  RecordEvent,
  RecordPosition,
  SessionRecordReader,
} from '../profiles/session-record.js';
import { PieceReader } from './pieces.js';

/** What a follower reports. */
export type FollowerReport =
  | { type: 'events'; events: readonly RecordEvent[] }
  /** A piece the reader does not know: the follower has stopped. */
  | { type: 'unknown'; why: string; position: RecordPosition }
  /** The file was replaced (another inode) or cut short: it is read again from the start. */
  | { type: 'reset'; why: 'replaced' | 'truncated' };

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
}

/** At most this much of a record is read at once. */
const CHUNK = 1 << 20;

/**
 * Follows one session record as the CLI writes it: through `fs.watch` on its folder (which sees
 * a file replaced by a rename, unlike a watch on the file) and a poll as the fallback where
 * inotify says nothing (network folders, a watch limit reached). For `jsonl` it reads only the
 * bytes appended since the last read and hands the reader complete lines only (a line still
 * being written waits for its newline); for `document` it reads the whole text when it changed
 * and passes on only the events it has not passed on yet. A file replaced (new inode) or
 * cut short is read again from the start. One unknown piece stops it for good.
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

  constructor(private readonly o: FollowerOptions) {
    this.offset = o.fromOffset ?? 0;
    this.pieces = new PieceReader(o.reader);
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
    const s = await stat(this.o.file);
    if (this.inode !== null && s.ino !== this.inode) this.reset('replaced');
    else if (this.o.reader.kind === 'jsonl' && s.size < this.offset) this.reset('truncated');
    this.inode = s.ino;
    if (this.o.reader.kind === 'document') await this.readDocument(s.size, s.mtimeMs);
    else await this.readAppended(s.size);
  }

  private reset(why: 'replaced' | 'truncated'): void {
    this.offset = 0;
    this.lastDocument = null;
    this.pieces.reset();
    this.o.report({ type: 'reset', why });
  }

  private async readAppended(size: number): Promise<void> {
    const handle = await open(this.o.file, 'r');
    try {
      while (!this.stopped && this.offset < size) {
        const length = Math.min(CHUNK, size - this.offset);
        const buf = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buf, 0, length, this.offset);
        if (bytesRead === 0) return;
        const last = buf.lastIndexOf(0x0a, bytesRead - 1);
        if (last < 0) {
          // No complete line in a whole chunk: a line longer than that waits for more.
          if (length < CHUNK) return;
          throw new Error('line too long');
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
            this.o.report({ type: 'unknown', why: reading.unknown, position });
            this.stop();
            return;
          }
          events.push(...reading.events);
        }
        this.offset += last + 1;
        if (events.length > 0) this.o.report({ type: 'events', events });
      }
    } finally {
      await handle.close();
    }
  }

  private async readDocument(size: number, mtimeMs: number): Promise<void> {
    if (this.lastDocument?.size === size && this.lastDocument.mtimeMs === mtimeMs) return;
    const handle = await open(this.o.file, 'r');
    let text: string;
    try {
      text = (await handle.readFile()).toString('utf8');
    } finally {
      await handle.close();
    }
    // A document caught half written does not parse: the next change completes it.
    try {
      JSON.parse(text);
    } catch {
      return;
    }
    this.lastDocument = { size, mtimeMs };
    this.o.piece?.({ file: this.o.file, offset: 0, text });
    const reading = this.pieces.read(text, { file: this.o.file, offset: 0 });
    if ('unknown' in reading) {
      this.o.report({
        type: 'unknown',
        why: reading.unknown,
        position: { file: this.o.file, offset: 0 },
      });
      this.stop();
      return;
    }
    if (reading.events.length === 0) return;
    this.o.report({ type: 'events', events: reading.events });
  }
}
