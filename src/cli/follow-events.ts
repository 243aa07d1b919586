import type { JournalRecord } from '../schemas/record.js';
import type { ApiClient } from './client-api.js';
import { causeOf, ClientError, EXIT, exitFor, type ClientOptions } from './client-api.js';
import { briefRecord } from './journal.js';

import type { ClientIo } from './client-io.js';

/** `paneward events`: follows the record stream over SSE, resuming by id after a cut. */
export async function followEvents(
  api: ApiClient,
  io: ClientIo,
  o: ClientOptions & { since?: number; terminal?: string },
  signal: AbortSignal,
): Promise<void> {
  let last = o.since ?? 0;
  const path = o.terminal ? `/v1/terminals/${encodeURIComponent(o.terminal)}/events` : '/v1/events';
  while (!signal.aborted) {
    let res: Response;
    try {
      res = await fetch(`${api.url}${path}`, {
        headers: api.headers({ accept: 'text/event-stream', 'last-event-id': String(last) }),
        signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw new ClientError(
        EXIT.unreachable,
        'unreachable',
        `cannot reach paneward at ${api.url}: ${causeOf(error)}`,
      );
    }
    if (!res.ok || !res.body) {
      const e = (
        (await res.json().catch(() => null)) as {
          error?: { code?: string; message?: string };
        } | null
      )?.error;
      throw new ClientError(
        exitFor(res.status, e?.code ?? ''),
        e?.code ?? 'http',
        e?.message ?? `HTTP ${res.status}`,
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
          );
          if (fields.event === 'heartbeat' || fields.data === undefined) continue;
          if (fields.event === 'overflow') break;
          const record = JSON.parse(fields.data) as JournalRecord;
          last = record.seq;
          io.out(o.json ? JSON.stringify(record) : briefRecord(record));
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      void error;
    }
    // Cut off (fell behind, or the server restarted): resume from the last record seen.
    await new Promise((r) => setTimeout(r, 500));
  }
}
