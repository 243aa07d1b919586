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

/** The record of one line (without its trailing newline), or null when the line is not intact. */
export function decodeLine(line: string): Record<string, unknown> | null {
  return decodeLineBytes(Buffer.from(line));
}

const SUFFIX_BYTES = /,"crc":"([0-9a-f]{8})"\}$/;
const CRC_TAIL = Buffer.from(',"crc":"');
const RECORD_HEAD = Buffer.from('{"v":');
const CLOSE = Buffer.from('}');
/** `,"crc":"` + 8 hex digits + `"}`. */
const TAIL_BYTES = CRC_TAIL.length + 10;

/**
 * The record of one line's raw bytes (without the newline), or null when they are not an
 * intact record. The CRC is checked over the bytes as they are on disk, before any decoding,
 * so a byte that is not UTF-8 can never pass for the character a decoder puts in its place.
 */
export function decodeLineBytes(bytes: Buffer): Record<string, unknown> | null {
  if (bytes.length < TAIL_BYTES + 1 || bytes[bytes.length - 1] !== 0x7d) return null;
  const tail = bytes.toString('latin1', bytes.length - TAIL_BYTES);
  const m = SUFFIX_BYTES.exec(tail);
  if (!m || m.index !== 0) return null;
  const body = bytes.subarray(0, bytes.length - TAIL_BYTES);
  const crc = crc32(CLOSE, crc32(body)).toString(16).padStart(8, '0');
  if (crc !== m[1]) return null;
  try {
    const value: unknown = JSON.parse(`${body.toString('utf8')}}`);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** An intact record found in a line, where it starts in the line and how many bytes it takes. */
export interface LinePiece {
  record: Record<string, unknown>;
  offset: number;
  bytes: number;
}

/**
 * The intact records in one line's raw bytes (without the newline): the line itself when it is
 * intact, else every intact record inside it. A line holds more than one record only when the
 * newline between two of them was damaged: the record after a damaged newline is found here
 * (it starts with `{"v":` and ends with its own CRC), so damage to one line's bytes, its newline
 * included, never takes the next record with it. Returns an empty list for a line with no
 * intact record.
 */
export function recordsInLine(bytes: Buffer): LinePiece[] {
  const whole = decodeLineBytes(bytes);
  if (whole !== null) return [{ record: whole, offset: 0, bytes: bytes.length }];
  const starts: number[] = [];
  for (let i = bytes.indexOf(RECORD_HEAD); i >= 0; i = bytes.indexOf(RECORD_HEAD, i + 1)) {
    starts.push(i);
  }
  const ends: number[] = [];
  for (let i = bytes.indexOf(CRC_TAIL); i >= 0; i = bytes.indexOf(CRC_TAIL, i + 1)) {
    ends.push(i + TAIL_BYTES);
  }
  const found: LinePiece[] = [];
  let from = 0;
  for (const s of starts) {
    if (s < from) continue;
    for (const e of ends) {
      if (e <= s || e > bytes.length) continue;
      const record = decodeLineBytes(bytes.subarray(s, e));
      if (record === null) continue;
      found.push({ record, offset: s, bytes: e - s });
      from = e;
      break;
    }
  }
  return found;
}
