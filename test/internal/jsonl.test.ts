import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isPanewardError } from '../../src/errors.js';
import { parseJsonLine, readJsonLines } from '../../src/internal/jsonl.js';
import { describeZodError } from '../../src/internal/zod-errors.js';

const dir = mkdtempSync(join(tmpdir(), 'paneward-jsonl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Schema = z.object({ a: z.number(), nested: z.object({ mode: z.enum(['x', 'y']) }) });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('readJsonLines', () => {
  it('keeps file line numbers and skips blank lines', () => {
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, '{"a":1}\n\n  \n{"a":2}\n');
    expect(readJsonLines(file)).toEqual([
      [1, '{"a":1}'],
      [4, '{"a":2}'],
    ]);
  });
});

describe('parseJsonLine', () => {
  it('returns the parsed value', () => {
    expect(parseJsonLine(Schema, 1, '{"a":1,"nested":{"mode":"x"}}', 'invalid_scenario')).toEqual({
      a: 1,
      nested: { mode: 'x' },
    });
  });

  it('invalid JSON names the line', () => {
    const e = thrown(() => parseJsonLine(Schema, 7, '{a:1}', 'invalid_scenario'));
    expect(isPanewardError(e)).toBe(true);
    expect((e as Error).message).toBe('line 7: not valid JSON');
  });

  it('a schema error names the line and the nested field path', () => {
    const e = thrown(() =>
      parseJsonLine(Schema, 3, '{"a":1,"nested":{"mode":"z"}}', 'invalid_scenario'),
    );
    expect((e as Error).message).toMatch(/^line 3: field `nested\.mode`: /);
    expect((e as { code: string }).code).toBe('invalid_scenario');
  });
});

describe('describeZodError', () => {
  it('writes one sentence per issue, each naming its field', () => {
    const r = Schema.safeParse({ nested: { mode: 1 } });
    expect(r.success).toBe(false);
    if (r.success) return;
    const text = describeZodError(r.error);
    expect(text).toContain('field `a`');
    expect(text).toContain('field `nested.mode`');
    expect(text.split('; ')).toHaveLength(2);
  });

  it('names the whole line when the issue has no path', () => {
    const r = Schema.safeParse(42);
    if (r.success) throw new Error('should fail');
    expect(describeZodError(r.error)).toMatch(/^field `\(line\)`: /);
  });
});
