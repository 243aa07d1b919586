import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The captured screens of `test/fixtures/<tool>/<scenario>.jsonl`, in recording order. */
export function recordedScreens(tool: string, scenario: string): string[] {
  const screens = readFileSync(`${FIXTURES}${tool}/${scenario}.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; text?: string })
    .filter((l) => l.type === 'frame' && typeof l.text === 'string')
    .map((l) => l.text!);
  if (screens.length === 0) throw new Error(`${tool}/${scenario}: no frames`);
  return screens;
}

/** One captured screen; a negative index counts from the end. */
export function recordedScreen(tool: string, scenario: string, index: number): string {
  const screens = recordedScreens(tool, scenario);
  const screen = screens.at(index);
  if (screen === undefined) throw new Error(`${tool}/${scenario}: no frame ${index}`);
  return screen;
}

/**
 * A real screen with some rows replaced. Each edit names the row, what the capture shows there
 * (its start, so a re-recorded fixture cannot silently change what a test replaces) and the new text.
 */
export function replaceRows(
  screen: string,
  edits: ReadonlyArray<readonly [row: number, was: string, now: string]>,
): string {
  const rows = screen.split('\n');
  for (const [row, was, now] of edits) {
    const current = rows[row];
    if (current === undefined || !current.startsWith(was)) {
      throw new Error(`row ${row} is ${JSON.stringify(current)}, expected ${JSON.stringify(was)}…`);
    }
    rows[row] = now;
  }
  return rows.join('\n');
}
