import { crc32 } from 'node:zlib';

/**
 * One journal line: the record's JSON with a CRC-32 of that JSON added as its last field,
 * `{...,"crc":"1a2b3c4d"}`, so each line is still plain JSON and a torn or damaged line is
 * recognised without trusting anything in it.
 */
export function encodeLine(record: object): string {
  return lineOfJson(JSON.stringify(record));
}

/** The journal line of a record already turned into JSON (see {@link encodeLine}). */
export function lineOfJson(json: string): string {
  const crc = crc32(json).toString(16).padStart(8, '0');
  return `${json.slice(0, -1)},"crc":"${crc}"}\n`;
}

const SUFFIX = /,"crc":"([0-9a-f]{8})"\}$/;

/** The record of one line (without its trailing newline), or null when the line is not intact. */
export function decodeLine(line: string): Record<string, unknown> | null {
  const m = SUFFIX.exec(line);
  if (!m) return null;
  const json = `${line.slice(0, m.index)}}`;
  if (crc32(json).toString(16).padStart(8, '0') !== m[1]) return null;
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
