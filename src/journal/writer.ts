import { closeSync, fdatasyncSync, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSize, listSegments, segmentName } from './segments.js';

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
    const start = this.#size;
    const buf = Buffer.from(lines);
    if (!this.#handle) this.#handle = await open(this.#file!, 'a', 0o600);
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
      truncateSync(this.#file, this.#size);
    }
  }

  /**
   * Whether the journal can write again: cuts the segment back, then writes, fsyncs and removes
   * a probe file as large as a batch. Throws when it cannot.
   */
  probe(): void {
    this.cutBack();
    const file = join(this.dir, '.probe');
    try {
      const fd = openSync(file, 'w', 0o600);
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
