import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  RecordEvent,
  RecordReading,
  SessionRecordReader,
} from '../../../src/profiles/session-record.js';

export const FIXTURES = join(import.meta.dirname, '../../fixtures/session-records');

export const fixtureText = (tool: string, name: string) =>
  readFileSync(join(FIXTURES, tool, name), 'utf8');

/**
 * The complete lines of a JSON Lines text with the byte offset each starts at, as a follower
 * hands them to a reader: a last line without its newline is not complete and is left out.
 */
export function completeLines(text: string): Array<{ line: string; offset: number }> {
  const out: Array<{ line: string; offset: number }> = [];
  let offset = 0;
  let rest = text;
  for (;;) {
    const nl = rest.indexOf('\n');
    if (nl < 0) return out;
    const line = rest.slice(0, nl);
    if (line.trim() !== '') out.push({ line, offset });
    offset += Buffer.byteLength(line, 'utf8') + 1;
    rest = rest.slice(nl + 1);
  }
}

/** One event, shortened for comparison: `started`, `success`, `interrupted`, `failed:<kind>`. */
export function brief(e: RecordEvent): string {
  if (e.type === 'turn_started') return 'started';
  return e.ending.reason === 'known_failure' ? `failed:${e.ending.kind}` : e.ending.reason;
}

export interface RecordRead {
  events: RecordEvent[];
  unknown: Array<{ offset: number; why: string }>;
}

/** Every complete line of `text` through the reader, as if the file were `file`. */
export function readRecord(
  reader: SessionRecordReader,
  text: string,
  file = '/r.jsonl',
): RecordRead {
  const out: RecordRead = { events: [], unknown: [] };
  for (const { line, offset } of completeLines(text)) {
    const reading: RecordReading = reader.read(line, { file, offset });
    if ('unknown' in reading) out.unknown.push({ offset, why: reading.unknown });
    else out.events.push(...reading.events);
  }
  return out;
}

/** Rewrites every line's JSON value (objects deeply) and joins the lines again. */
export function mapLines(text: string, f: (value: unknown) => unknown): string {
  return text
    .split('\n')
    .map((l) => (l.trim() === '' ? l : JSON.stringify(f(JSON.parse(l)))))
    .join('\n');
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every object's keys in reverse order, deeply. */
export function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversedKeys(x)]),
  );
}

/** An extra field nobody knows in every object, deeply. */
export function withExtraFields(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withExtraFields);
  if (!isObject(v)) return v;
  return {
    ...Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withExtraFields(x)])),
    added_later: { note: 'a field a newer version might write' },
  };
}
