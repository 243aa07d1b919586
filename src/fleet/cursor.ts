import { mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { withTimeout } from './connection.js';
import { recordFilter, SEQ_HEADER, STREAM } from './names.js';

/**
 * The last journal seq JetStream acknowledged for a host (with every one before it), kept in a
 * file of the data directory so an edge that restarts goes on from there.
 */
export class PublishCursor {
  /** The seq acknowledged so far. */
  seq: number;
  private saved: number;
  private write: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly hostId: string,
    private readonly log: Logger | undefined,
  ) {
    this.seq = this.read();
    this.saved = this.seq;
  }

  /** Moves on to `seq` (never back) and saves it; one write at a time, the latest value wins. */
  advance(seq: number): void {
    if (seq <= this.seq) return;
    this.seq = seq;
    this.write = this.write
      .then(async () => {
        if (this.saved >= this.seq) return;
        const value = this.seq;
        const tmp = `${this.file}.tmp`;
        await writeFile(tmp, JSON.stringify({ host: this.hostId, seq: value }) + '\n');
        await rename(tmp, this.file);
        this.saved = value;
      })
      .catch((error: unknown) => {
        this.log?.warn({ err: String(error) }, 'cannot save the publish cursor');
      });
  }

  /** Until the latest write is done. */
  flushed(): Promise<void> {
    return this.write;
  }

  private read(): number {
    mkdirSync(dirname(this.file), { recursive: true });
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as { host?: unknown; seq?: unknown };
      return v.host === this.hostId && Number.isInteger(v.seq) ? (v.seq as number) : 0;
    } catch {
      return 0;
    }
  }
}

/** The journal seq of the stream's last record of a host; 0 when it has none. */
export async function lastPublishedSeq(jsm: JetStreamManager, hostId: string): Promise<number> {
  try {
    const m = await withTimeout(
      jsm.streams.getMessage(STREAM, { last_by_subj: recordFilter(hostId) }),
    );
    if (m) return Number(m.header?.get(SEQ_HEADER) || (m.json() as { seq: number }).seq);
  } catch (error) {
    if (!/no message found/i.test(String(error))) throw error;
  }
  return 0;
}
