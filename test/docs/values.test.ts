import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TerminalState } from '../../src/index.js';
import { Acceptability } from '../../src/terminal/operations.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's values table: each field (first column, in backticks) with the values listed for it. */
function valuesTable(markdown: string): Map<string, Set<string>> {
  const start = markdown.indexOf('## What the values mean');
  expect(start).toBeGreaterThan(-1);
  const section = markdown.slice(start, markdown.indexOf('\n## ', start + 1));
  const out = new Map<string, Set<string>>();
  let field: string | null = null;
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || /^-+$/.test(cells[1]!) || cells[1] === 'field') continue;
    const named = /^`([^`]+)`$/.exec(cells[1]!);
    if (named) field = named[1]!;
    else if (cells[1] !== '' && !cells[1]!.startsWith('(')) field = cells[1]!;
    if (field === null) continue;
    const values = out.get(field) ?? new Set<string>();
    for (const m of cells[2]!.matchAll(/`([^`]+)`/g)) values.add(m[1]!);
    out.set(field, values);
  }
  return out;
}

const shape = TerminalState.shape;
/** Every value a user reads in a terminal's state, by the field the README names. */
const fromCode: Record<string, readonly string[]> = {
  'readiness.status': shape.readiness.shape.status.options,
  'turn.phase': shape.turn.shape.phase.options,
  'lastTurn.result': shape.lastTurn.shape.result.options,
  'lastTurn.source': shape.lastTurn.shape.source.options,
  'completion.status': shape.completion.unwrap().shape.status.options,
  'diagnostics.availability': shape.diagnostics.shape.availability.options,
  'session.status': shape.session.shape.status.options,
  'watchdog.state': shape.watchdog.shape.state.options,
  'operations.*.allowed': Acceptability.options,
};

describe("the README's table of values", () => {
  const table = valuesTable(readme);

  it.each(Object.entries(fromCode))('lists every value of %s and no other', (field, values) => {
    expect([...(table.get(field) ?? [])].sort()).toEqual([...values].sort());
  });

  it('names every business state and input mode of the surface', () => {
    const paragraph = readme.slice(readme.indexOf('`surface` is what the latest screen shows'));
    const said = paragraph.slice(0, paragraph.indexOf('\n\n'));
    const surface = shape.surface.shape;
    for (const value of [...surface.businessState.options, ...surface.inputMode.options]) {
      expect(said).toContain(`\`${value}\``);
    }
  });

  it('lists the outcome of a turn waited for as the HTTP API answers it', () => {
    expect([...(table.get('a turn waited for') ?? [])].sort()).toEqual([
      'completed',
      'failed',
      'timeout',
    ]);
  });
});
