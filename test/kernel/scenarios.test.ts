import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectSameLines, readExpected, replayFile } from './internal/compare-records.js';

const HERE = join(import.meta.dirname, 'scenarios');
// The project's public example scenarios with their expected output (contracts.md §1).
const PUBLIC = join(import.meta.dirname, 'scenarios/public');

function scenarioFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'))
    .sort();
}

// Expected outputs were worked out by hand from statecharts.md §1–§3 and contracts.md §1.
// Completion anomaly lines carry an extra `turn` key the contract does not list; that is
// checked on its own below, so it is left out here.
describe('kernel timing scenarios (hand-computed expectations)', () => {
  const files = scenarioFiles(HERE);
  it('has the scenarios', () => {
    expect(files.length).toBeGreaterThanOrEqual(9);
  });
  it.each(files)('%s', (file) => {
    const expected = readExpected(join(HERE, file.replace(/\.jsonl$/, '.expected.jsonl')));
    expectSameLines(replayFile(join(HERE, file)), expected);
  });

  it('gap and continuous differ only in when the same input stalls', () => {
    const gap = replayFile(join(HERE, 'same-input-gap.jsonl'));
    const continuous = replayFile(join(HERE, 'same-input-continuous.jsonl'));
    expect(gap.map((l) => l.t)).toEqual([0, 0, 13, 13, 13, 13]);
    expect(continuous.map((l) => l.t)).toEqual([0, 0, 5, 5, 5, 5]);
  });
});

describe('public kernel scenarios', () => {
  it('are all here', () => expect(scenarioFiles(PUBLIC)).toHaveLength(15));

  it.each(scenarioFiles(PUBLIC))('%s', (file) => {
    const expected = readExpected(join(PUBLIC, file.replace(/\.jsonl$/, '.expected.jsonl')));
    expectSameLines(replayFile(join(PUBLIC, file)), expected);
  });

  // contracts.md §1 and k4's expected output: anomaly lines are {t, anomaly, phase, elapsed…}
  // (+ recoveredTo) and nothing else.
  it('completion anomaly lines have exactly the keys of the public example (k4)', () => {
    const file = 'k4-completion-recovers-from-stall';
    expectSameLines(
      replayFile(join(PUBLIC, `${file}.jsonl`)),
      readExpected(join(PUBLIC, `${file}.expected.jsonl`)),
    );
  });
});
