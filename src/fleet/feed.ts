import { DeliverPolicy, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { Subject, type Observable } from 'rxjs';
import { JournalRecord } from '../schemas/record.js';
import type { RecordFeed } from '../service/port.js';
import { parseRecordSubject, qualify, recordFilter, STREAM, unqualify } from './names.js';
import { withTimeout } from './connection.js';

/**
 * A record as the fleet view serves it: `seq` is the stream sequence (the SSE event id, so
 * `Last-Event-ID` resumes across hosts), `terminalId` is qualified by the host, `hostSeq` is the
 * seq in that host's journal.
 */
export type FleetRecord = JournalRecord & { host: string; hostSeq: number };

/** Turns a stream message into a fleet record; null (and a log line) when it is not one. */
export function toFleetRecord(m: JsMsg, log?: Logger): FleetRecord | null {
  const where = parseRecordSubject(m.subject);
  let raw: unknown;
  try {
    raw = m.json();
  } catch {
    raw = undefined;
  }
  const parsed = JournalRecord.safeParse(raw);
  if (!where || !parsed.success) {
    log?.warn({ subject: m.subject, seq: m.seq }, 'a stream message that is not a record');
    return null;
  }
  const r = parsed.data;
  return {
    ...r,
    seq: m.seq,
    terminalId: r.terminalId === null ? null : qualify(where.host, r.terminalId),
    host: where.host,
    hostSeq: r.seq,
  } as FleetRecord;
}

/**
 * The fleet's record stream as the HTTP app reads it: the latest `tailSize` records in memory
 * (what a client that keeps up is served from), older ones fetched from the stream on demand,
 * and each terminal's latest records for `history`.
 */
export class FleetFeed implements RecordFeed {
  private readonly tail: FleetRecord[] = [];
  private readonly recent = new Map<string, FleetRecord[]>();
  private readonly subject = new Subject<JournalRecord>();
  private last = 0;
  readonly records$: Observable<JournalRecord> = this.subject.asObservable();

  constructor(
    private readonly tailSize: number,
    private readonly recentPerTerminal: number,
    private readonly js: () => JetStreamClient | null,
    private readonly log?: Logger,
  ) {}

  get lastSeq(): number {
    return this.last;
  }

  get durableSeq(): number {
    return this.last;
  }

  /** The next stream sequence the view has not seen. */
  get nextSeq(): number {
    return this.last + 1;
  }

  /** Takes the next message of the stream (in stream order). */
  push(m: JsMsg): void {
    if (m.seq <= this.last) return;
    this.last = m.seq;
    const r = toFleetRecord(m, this.log);
    if (!r) return;
    this.tail.push(r);
    if (this.tail.length > this.tailSize) this.tail.splice(0, this.tail.length - this.tailSize);
    if (r.terminalId !== null) {
      let list = this.recent.get(r.terminalId);
      if (!list) this.recent.set(r.terminalId, (list = []));
      list.push(r);
      if (list.length > this.recentPerTerminal)
        list.splice(0, list.length - this.recentPerTerminal);
    }
    this.subject.next(r);
  }

  /** A terminal's latest records (as far back as the view has read), oldest first. */
  history(id: string, limit?: number): FleetRecord[] {
    const list = this.recent.get(id) ?? [];
    return limit === undefined ? list.slice() : list.slice(-limit);
  }

  forget(id: string): void {
    this.recent.delete(id);
  }

  async readAfter(
    afterSeq: number,
    options: { terminalId?: string; limit?: number } = {},
  ): Promise<JournalRecord[]> {
    const limit = Math.min(options.limit ?? 500, 1000);
    const keep = (r: FleetRecord) =>
      options.terminalId === undefined || r.terminalId === options.terminalId;
    const first = this.tail[0];
    if (afterSeq >= this.last) return [];
    if (first !== undefined && first.seq <= afterSeq + 1) {
      const out: FleetRecord[] = [];
      for (const r of this.tail) {
        if (r.seq <= afterSeq || !keep(r)) continue;
        out.push(r);
        if (out.length >= limit) break;
      }
      return out;
    }
    return this.fetch(afterSeq, options.terminalId, limit);
  }

  /** Older records, read from the stream itself (bounded in count and time). */
  private async fetch(afterSeq: number, terminalId: string | undefined, limit: number) {
    const js = this.js();
    if (!js) return [];
    const q = terminalId === undefined ? null : unqualify(terminalId);
    if (terminalId !== undefined && !q) return [];
    const consumer = await withTimeout(
      js.consumers.get(STREAM, {
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: afterSeq + 1,
        ...(q ? { filter_subjects: recordFilter(q.host, q.terminalId) } : {}),
      }),
    );
    const out: FleetRecord[] = [];
    const batch = await consumer.fetch({ max_messages: limit, expires: 2000 });
    for await (const m of batch) {
      if (m.seq > this.last) break;
      const r = toFleetRecord(m, this.log);
      if (r && (terminalId === undefined || r.terminalId === terminalId)) out.push(r);
      if (m.info.pending === 0 || out.length >= limit) break;
    }
    await consumer.delete().catch(() => {});
    return out;
  }

  close(): void {
    this.subject.complete();
  }
}
