import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { PanewardError, type PanewardErrorCode } from '../errors.js';
import { describeZodError } from './zod-errors.js';

/** Reads a JSON Lines file (`-` for standard input) as `[lineNumber, text]` pairs, blank lines skipped. */
export function readJsonLines(file: string): Array<[number, string]> {
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') {
      throw new PanewardError('invalid_input', `${file} is a folder, not a JSON Lines file`, {
        cause: error,
      });
    }
    if (code === 'ENOENT') {
      throw new PanewardError('invalid_input', `${file}: no such file`, { cause: error });
    }
    throw error;
  }
  const out: Array<[number, string]> = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '') out.push([i + 1, line]);
  });
  return out;
}

/** Parses and validates one line, throwing a PanewardError that names the line and the field. */
export function parseJsonLine<T extends z.ZodType>(
  schema: T,
  lineNumber: number,
  text: string,
  code: PanewardErrorCode,
): z.infer<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new PanewardError(code, `line ${lineNumber}: not valid JSON`, { cause });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError(code, `line ${lineNumber}: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  return parsed.data;
}
