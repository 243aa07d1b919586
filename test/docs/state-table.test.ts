// The public state's table in docs/contracts.md §3 is the schema: every path of `TerminalState`
// (and the `operations` every state read carries) with its values, and nothing the schema lacks.
// A field added, renamed or given another value fails here until the docs say so too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TerminalView } from '../../src/schemas/operations/reads.js';

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** One line per path: `path[?]  values`, values as the schema allows them. */
function render(schema: z.ZodType, path: string, out: string[]): void {
  let s = schema;
  let optional = false;
  let nullable = false;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'optional' || d.type === 'default') optional ||= d.type === 'optional';
    else if (d.type === 'nullable') nullable = true;
    else break;
    s = d.innerType as z.ZodType;
  }
  const d = defOf(s);
  const name = `${path}${optional ? '?' : ''}`;
  const orNull = nullable ? ' | null' : '';
  switch (d.type) {
    case 'object': {
      out.push(`${name}  object${orNull}`);
      for (const [k, v] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        render(v, `${path}.${k}`, out);
      }
      return;
    }
    case 'enum':
      out.push(`${name}  ${Object.values(d.entries as Record<string, string>).join('|')}${orNull}`);
      return;
    case 'array': {
      const el = defOf(d.element as z.ZodType);
      out.push(`${name}  ${el.type}[]${orNull}`);
      return;
    }
    case 'boolean':
      out.push(`${name}  true|false${orNull}`);
      return;
    default:
      out.push(`${name}  ${d.type}${orNull}`);
  }
}

function schemaLines(): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(TerminalView.shape)) {
    if (k === 'host' || k === 'spawned') continue; // a fleet's and a spawn's, documented apart
    render(v as z.ZodType, k, out);
  }
  return out.filter((l) => !/^[^?\s]+ {2}object$/.test(l)).map((l) => l.replace(/\s+/g, ' '));
}

function docLines(): string[] {
  const text = readFileSync(join(import.meta.dirname, '../../docs/contracts.md'), 'utf8');
  const block = /<!-- state-table -->\s*```\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('docs/contracts.md has no state-table block');
  return block[1]!
    .split('\n')
    .map((l) =>
      l
        .replace(/\s+#.*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => l !== '');
}

describe('docs/contracts.md §3 lists the public state as the schema has it', () => {
  it('every path and its values, in the schema order', () => {
    expect(docLines()).toEqual(schemaLines());
  });
});
