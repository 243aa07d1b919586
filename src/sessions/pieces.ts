import type {
  RecordEvent,
  RecordPosition,
  RecordReading,
  RecordReply,
  SessionRecordReader,
} from '../profiles/session-record.js';

/**
 * Reads the pieces of one session record in the order they were read from the file, for the
 * live follower and for replay alike: a `jsonl` line goes to the reader as it is; a `document`
 * gives only the events not passed on yet (the CLI rewrites the whole document, so the events
 * of earlier versions come again).
 */
export class PieceReader {
  /** Events already passed on from a document (an entry rewritten later may add one). */
  private readonly done = new Set<string>();

  /** `replies`: the reader is asked for each piece's reply text too (a turn's payload). */
  constructor(
    readonly reader: SessionRecordReader,
    private readonly replies = false,
  ) {}

  /**
   * The reply text a piece `read` knew carries, when replies were asked for and the reader tells
   * them (a line of a `jsonl` record; a document's replies are not read). A reader that fails on
   * it tells none.
   */
  reply(piece: string): RecordReply | null {
    if (!this.replies || this.reader.kind !== 'jsonl' || !this.reader.reply) return null;
    try {
      return this.reader.reply(piece);
    } catch {
      return null;
    }
  }

  /** The file is read again from its start (it was replaced or cut short). */
  reset(): void {
    this.done.clear();
  }

  read(piece: string, position: RecordPosition): RecordReading {
    const reading = this.reader.read(piece, position);
    if ('unknown' in reading || this.reader.kind === 'jsonl') return reading;
    const key = (e: RecordEvent) => `${e.position.offset}:${e.type}:${e.event}`;
    const fresh = reading.events.filter((e) => !this.done.has(key(e)));
    for (const e of fresh) this.done.add(key(e));
    return { events: fresh };
  }
}
