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

  /** A document's reply last passed on: the same one rewritten is not passed on again. */
  private lastDocumentReply: string | null = null;

  /**
   * The reply text a piece `read` knew carries, when replies were asked for and the reader tells
   * them: a line of a `jsonl` record, or a document's last message when it is a reply not passed
   * on yet. A reader that fails on it tells none.
   */
  reply(piece: string): RecordReply | null {
    if (!this.replies || !this.reader.reply) return null;
    let reply: RecordReply | null;
    try {
      reply = this.reader.reply(piece);
    } catch {
      return null;
    }
    if (reply === null || this.reader.kind === 'jsonl') return reply;
    const key = JSON.stringify([reply.offset ?? null, reply.messageId ?? null, reply.text]);
    if (key === this.lastDocumentReply) return null;
    this.lastDocumentReply = key;
    return reply;
  }

  /** The file is read again from its start (it was replaced or cut short). */
  reset(): void {
    this.done.clear();
    this.lastDocumentReply = null;
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

/**
 * A piece's events split around its reply, in the order they happened: a line's reply comes before
 * the line's events (the ending it tells); a document's after the events of earlier messages (the
 * prompt that started its turn) and before the rest.
 */
export function aroundReply(
  events: readonly RecordEvent[],
  reply: RecordReply | null,
): [readonly RecordEvent[], readonly RecordEvent[]] {
  if (reply?.offset === undefined) return [[], events];
  const at = reply.offset;
  return [
    events.filter((e) => e.position.offset < at),
    events.filter((e) => e.position.offset >= at),
  ];
}
