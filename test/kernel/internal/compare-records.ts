import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { replayKernelScenario } from '../../../src/cli/replay-kernel.js';

export const FLOAT_TOLERANCE = 1e-6;

export type Line = Record<string, unknown>;

/** Replays a kernel scenario file and returns its printed lines, as JSON round-trips. */
export function replayFile(file: string): Line[] {
  const out: Line[] = [];
  replayKernelScenario(file, (r) => out.push(JSON.parse(JSON.stringify(r)) as Line));
  return out;
}

export function readExpected(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= FLOAT_TOLERANCE;
  return a === b;
}

/** Line-by-line comparison: same keys, same values, numbers within 1e-6. */
export function expectSameLines(actual: Line[], expected: Line[]): void {
  const cleaned = actual;
  const render = (lines: Line[]) => lines.map((l) => JSON.stringify(l)).join('\n');
  const mismatch = () => `\nexpected:\n${render(expected)}\nactual:\n${render(cleaned)}`;
  expect(cleaned.length, `line count${mismatch()}`).toBe(expected.length);
  cleaned.forEach((line, i) => {
    const want = expected[i]!;
    expect(Object.keys(line).sort(), `keys of line ${i + 1}${mismatch()}`).toEqual(
      Object.keys(want).sort(),
    );
    for (const key of Object.keys(want)) {
      expect(
        sameValue(line[key], want[key]),
        `line ${i + 1} field ${key}: ${String(line[key])} vs ${String(want[key])}${mismatch()}`,
      ).toBe(true);
    }
  });
}
