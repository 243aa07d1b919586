import { closeSync, constants, fdatasyncSync, ftruncateSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PanewardError } from '../errors.js';
import { linkRefused, openNoFollow } from './files.js';
import { fileSize, listSegments, segmentName } from './segments.js';

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDWR, O_WRONLY } = constants;

/**
 * Writes the journal's segments: appends lines to the newest segment (fsynced when asked),
 * starts a new one for a checkpoint and drops the oldest past `retainSegments`, and cuts a
 * segment back to its last acknowledged byte after a failed write.
 */
export class SegmentWriter {
  #handle: FileHandle | null = null;
  #file: string | null;
  /** Bytes of the segment that are acknowledged (written and fsynced). */
  #size: number;

  constructor(
    private readonly dir: string,
    private readonly retainSegments: number,
    private readonly fsync: boolean,
    segment: { file: string | null; size: number },
  ) {
    this.#file = segment.file;
    this.#size = segment.size;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Writes lines whose first record is `firstSeq`; they start a new segment when `rotate` (a
   * checkpoint) or when there is none yet. Resolves with the segment and where they start.
   */
  async write(
    lines: string,
    firstSeq: number,
    rotate: boolean,
  ): Promise<{ file: string; start: number }> {
    if (rotate || this.#file === null) await this.#startSegment(firstSeq);
    const buf = Buffer.from(lines);
    if (!this.#handle) this.#handle = await this.#open(this.#file!);
    const start = this.#size;
    // A short write (a full disk) is continued; an error is the journal's failure.
    let written = 0;
    while (written < buf.length) {
      const { bytesWritten } = await this.#handle.write(buf, written, buf.length - written);
      if (bytesWritten <= 0) throw new Error('the disk took no bytes (write returned 0)');
      written += bytesWritten;
    }
    if (this.fsync) await this.#handle.datasync();
    this.#size += buf.length;
    return { file: this.#file!, start };
  }

  /**
   * Opens a segment to append to, never through a symbolic link (refused, naming the file). A
   * segment that does not end with a newline (bytes a crash left that nobody cut) gets one first,
   * so the next record starts on a line of its own and is never glued to them.
   */
  async #open(file: string): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(file, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(file, error);
      throw error;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) {
        throw new PanewardError('journal_corrupt', `${file} is not a regular file; remove it`);
      }
      let size = st.size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) {
          await handle.write('\n');
          size += 1;
        }
      }
      this.#size = size;
      return handle;
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  }

  async #startSegment(firstSeq: number): Promise<void> {
    await this.#handle?.close();
    this.#handle = null;
    this.#file = join(this.dir, segmentName(firstSeq));
    this.#size = fileSize(this.#file);
    const segments = listSegments(this.dir);
    for (const old of segments.slice(0, Math.max(0, segments.length + 1 - this.retainSegments))) {
      if (old.file !== this.#file) rmSync(old.file, { force: true });
    }
  }

  /** Cuts what a failed write left past the last acknowledged byte. */
  cutBack(): void {
    if (this.#file !== null && fileSize(this.#file) > this.#size) {
      const fd = openNoFollow(this.#file, O_WRONLY);
      try {
        ftruncateSync(fd, this.#size);
      } finally {
        closeSync(fd);
      }
    }
  }

  /**
   * Whether the journal can write again: cuts the segment back, then writes, fsyncs and removes
   * a probe file as large as a batch. Throws when it cannot.
   */
  probe(): void {
    this.cutBack();
    const file = join(this.dir, '.probe');
    // Whatever is in its place goes first (a link is removed, never written through).
    rmSync(file, { force: true });
    try {
      const fd = openNoFollow(file, O_WRONLY | O_CREAT | O_EXCL);
      try {
        writeFileSync(fd, Buffer.alloc(64 * 1024, 0x20));
        if (this.fsync) fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(file, { force: true });
    }
  }

  async close(): Promise<void> {
    await this.#handle?.close().catch(() => {});
    this.#handle = null;
  }
}
