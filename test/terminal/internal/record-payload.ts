import type { JournalRecord } from '../../../src/schemas/record.js';

/** A record without what the journal stamps on it (`v`, `seq`, `at`). */
export function payload(r: JournalRecord): Record<string, unknown> {
  const { v: _v, seq: _seq, at: _at, ...rest } = r;
  return rest;
}
