import type { JournalRecord } from '../schemas/record.js';
import type { SupervisorPort } from './port.js';

/** How many of the journal's latest records (all terminals) `history?since=` reads at most. */
const SINCE_WINDOW = 10_000;

/**
 * A terminal's records made at or after `since`, oldest first, and the time from which they are
 * all there: the ones kept for it, and when those do not reach back that far, the journal's
 * latest records of it before them (else only as far back as those reach).
 */
export async function historySince(
  sup: SupervisorPort,
  id: string,
  since: string,
  limit: number,
): Promise<{ records: JournalRecord[]; completeSince: string }> {
  const from = Date.parse(since);
  let records = await sup.history(id);
  let completeSince = since;
  const oldest = records[0];
  if (oldest !== undefined && Date.parse(oldest.at) > from) {
    const window = await sup.journal.readAfter(Math.max(0, sup.journal.durableSeq - SINCE_WINDOW), {
      limit: SINCE_WINDOW,
    });
    const first = window[0];
    const last = window[window.length - 1];
    if (first === undefined || last === undefined || last.seq < oldest.seq - 1) {
      // The window does not join the kept records: only those are sure to be complete.
      completeSince = oldest.at;
    } else {
      records = [...window.filter((r) => r.terminalId === id && r.seq < oldest.seq), ...records];
      if (Date.parse(first.at) > from) completeSince = first.at;
    }
  }
  records = records.filter((r) => Date.parse(r.at) >= from);
  if (records.length > limit) {
    records = records.slice(-limit);
    completeSince = records[0]!.at;
  }
  return { records, completeSince };
}
