import type { JournalRecord } from '../schemas/record.js';
import type { ApiClient } from './client-api.js';
import type { ClientOptions } from './client-api.js';
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
  while (!signal.aborted) {
    let res: Response;
    try {
      res = await api.eventStream(o.terminal, last, signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
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
