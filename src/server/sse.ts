import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { NEVER, Subject, filter, firstValueFrom, map, race, timer } from 'rxjs';
import { isPanewardError } from '../errors.js';
import type { RecordFeed } from '../service/port.js';

export interface SseOptions {
  /** A heartbeat event after this long without records; default 15 s. */
  heartbeatMs: number;
  /** A client this many records behind the journal is cut off (it resumes by id); default 10000. */
  maxLagRecords: number;
  /** A write the client does not take within this long cuts it off; default 10 s. */
  writeTimeoutMs: number;
}

export const DEFAULT_SSE: SseOptions = {
  heartbeatMs: 15_000,
  maxLagRecords: 10_000,
  writeTimeoutMs: 10_000,
};

/** Records are read and sent in chunks of this many. */
const CHUNK = 500;

class WriteTimeout extends Error {}

/**
 * Streams the record stream as Server-Sent Events: every acknowledged record after `since`
 * (optionally of one terminal), then each new one, with the record's `seq` as the event id, so
 * `Last-Event-ID` resumes without a gap or a duplicate, also after a server restart (it reads
 * the journal). Nothing is queued per client: it reads the journal as fast as it takes the
 * events. A client that falls too far behind, or stops taking events, gets a final `overflow`
 * event naming where to resume and is cut off. A client asking for records that are not there
 * to read (dropped by retention, or on a damaged line) gets a `gap` event with the range
 * (`{from, to, reason}`) before the records after it. While the journal cannot write, the
 * client gets an `error` event (`{code, message, since}`), and a `recovered` event when it can
 * again; the stream stays open.
 */
export function streamRecords(
  c: Context,
  journal: RecordFeed,
  opts: { since: number; terminalId?: string; sse: SseOptions; onOpen?: () => () => void },
) {
  return streamSSE(c, async (stream) => {
    const closed = opts.onOpen?.();
    let aborted = false;
    const abort$ = new Subject<'aborted'>();
    stream.onAbort(() => {
      aborted = true;
      abort$.next('aborted');
    });
    let last = opts.since;
    const write = (ev: Parameters<SSEStreamingApi['writeSSE']>[0]) =>
      Promise.race([
        stream.writeSSE(ev),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new WriteTimeout()), opts.sse.writeTimeoutMs).unref(),
        ),
      ]);
    const cutOff = async (reason: string) => {
      await write({ event: 'overflow', data: JSON.stringify({ resumeFrom: last, reason }) }).catch(
        () => {},
      );
    };
    let gapReported = opts.since;
    const gaps: Array<{ from: number; to: number; reason: string }> = [];
    const onGap = (gap: { from: number; to: number; reason: string }) => {
      if (gap.to <= gapReported) return;
      gapReported = gap.to;
      gaps.push(gap);
    };
    let failureSent: unknown = null;
    const reportHealth = async () => {
      const failure = journal.failure ?? null;
      if (failure === failureSent) return;
      if (failure) await write({ event: 'error', data: JSON.stringify(failure) });
      else
        await write({
          event: 'recovered',
          data: JSON.stringify({ durableSeq: journal.durableSeq }),
        });
      failureSent = failure;
    };
    // Wakes the wait below when the journal's health differs from what the client was told.
    const healthChanged$ = (journal.health$ ?? NEVER).pipe(
      filter((failure) => failure !== failureSent),
      map(() => 'health' as const),
    );
    try {
      while (!aborted) {
        await reportHealth();
        const batch = await journal.readAfter(last, {
          terminalId: opts.terminalId,
          limit: CHUNK,
          onGap,
        });
        for (const gap of gaps.splice(0)) {
          await write({ event: 'gap', data: JSON.stringify(gap) });
        }
        if (batch.length > 0) {
          for (const r of batch) {
            await write({ id: String(r.seq), event: r.kind, data: JSON.stringify(r) });
            last = r.seq;
          }
          if (journal.durableSeq - last > opts.sse.maxLagRecords) {
            await cutOff(`more than ${opts.sse.maxLagRecords} records behind`);
            break;
          }
          continue;
        }
        // Caught up: wait for the next acknowledged record, or send a heartbeat.
        const next = await firstValueFrom(
          race(journal.records$, timer(opts.sse.heartbeatMs), abort$, healthChanged$),
          { defaultValue: null },
        );
        if (next === 'aborted') break;
        if (next === 'health') continue;
        if (next === 0) {
          await write({
            event: 'heartbeat',
            data: JSON.stringify({ durableSeq: journal.durableSeq }),
          });
        } else if (next === null) break; // the journal closed: the server is stopping
      }
    } catch (error) {
      if (error instanceof WriteTimeout) await cutOff('the client stopped taking events');
      else {
        // The journal could not be read: the client is told why, not left with a silent end.
        const failure = {
          code: isPanewardError(error) ? error.code : 'journal_failed',
          message: `the journal cannot be read: ${error instanceof Error ? error.message : String(error)}`,
          resumeFrom: last,
        };
        await write({ event: 'error', data: JSON.stringify(failure) }).catch(() => {});
      }
    } finally {
      closed?.();
      await stream.close().catch(() => {});
    }
  });
}
