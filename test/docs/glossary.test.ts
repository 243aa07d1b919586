/**
 * Every word paneward prints that the README's table of values does not explain is explained in
 * docs/glossary.md: the values are taken from the schemas and the column lists themselves, so a
 * value added to the code without a word in the docs fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCTOR_COLUMNS } from '../../src/cli/doctor.js';
import { LS_COLUMNS } from '../../src/cli/table.js';
import { TerminalState } from '../../src/index.js';
import { ParseOutcome, ProcessOutcome, TransportOutcome } from '../../src/schemas/probe.js';
import { RestartPolicy, StopAnswer } from '../../src/schemas/spawn.js';
import {
  CompletionAuthoritySchema,
  OutcomeWitnessSchema,
} from '../../src/schemas/terminal-state.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const glossary = readFileSync(join(root, 'docs/glossary.md'), 'utf8');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The table rows of one section of the glossary: first cell, then the row's text. */
function rows(section: string): Array<{ word: string; row: string }> {
  const start = glossary.indexOf(`## ${section}`);
  expect(start, section).toBeGreaterThan(-1);
  const end = glossary.indexOf('\n## ', start + 1);
  return glossary
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .map((l) => ({ word: l.split('|')[1]!.trim(), row: l }));
}

/** The row explaining `value`, whose row also names `field`, with some words of meaning. */
function explained(section: string, value: string, field: string): boolean {
  return rows(section).some(
    ({ word, row }) =>
      new RegExp(`(^|\\s)\`${value}\`$`).test(word) &&
      row.includes(field) &&
      (row.split('|').at(-2) ?? '').trim().length > 10,
  );
}

const witness = TerminalState.shape.witness.unwrap().shape;
const values: Array<[section: string, field: string, values: readonly string[]]> = [
  ['Turns and their witnesses', 'lastTurn.witness', OutcomeWitnessSchema.options],
  ['Turns and their witnesses', 'witness.authority', CompletionAuthoritySchema.options],
  ['Turns and their witnesses', 'witness.record', witness.record.options],
  ['Turns and their witnesses', 'lastTurn.source', ['explicit_input', 'surface_inference']],
  ['Diagnostics in detail', 'transport', TransportOutcome.options],
  ['Diagnostics in detail', 'process', ProcessOutcome.options],
  ['Diagnostics in detail', 'parse', ParseOutcome.options],
  ['Starting and stopping', 'restart.policy', RestartPolicy.options],
  ['Starting and stopping', 'ended', StopAnswer.shape.ended.options],
  ['Columns of `paneward ls`', '', LS_COLUMNS],
  ['Columns of `paneward doctor`', '', DOCTOR_COLUMNS],
];

describe('the glossary', () => {
  it.each(values)('%s: explains every value of %s', (section, field, vals) => {
    const missing = vals.filter((v) => !explained(section, v, field));
    expect(missing).toEqual([]);
  });

  it('explains the phrases `state` prints, and the README and docs link to it', () => {
    for (const phrase of ['completion authority', 'session record', 'turn-N']) {
      expect(rows('Turns and their witnesses').some(({ word }) => word.includes(phrase))).toBe(
        true,
      );
    }
    expect(readme).toContain('docs/glossary.md');
    const index = readFileSync(join(root, 'docs/contracts.md'), 'utf8');
    expect(index).toContain('glossary.md');
  });
});
