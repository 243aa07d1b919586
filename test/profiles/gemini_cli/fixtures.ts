import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One recorded line of a Gemini CLI fixture. */
export interface FixtureLine {
  type: string;
  t: number;
  text?: string;
  transport?: string;
  process?: string;
}

/** Loads `test/fixtures/gemini_cli/<name>.jsonl`. */
export function loadFixture(name: string): FixtureLine[] {
  const file = fileURLToPath(new URL(`../../fixtures/gemini_cli/${name}.jsonl`, import.meta.url));
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as FixtureLine);
}

/** The frames of a fixture (polls with a capture). */
export function framesOf(lines: FixtureLine[]): Array<FixtureLine & { text: string }> {
  return lines.filter(
    (l): l is FixtureLine & { text: string } => l.type === 'frame' && typeof l.text === 'string',
  );
}

/** The first frame whose screen matches `re` (throws when none does, so a test cannot pass vacuously). */
export function frameMatching(
  lines: FixtureLine[],
  re: RegExp,
  from = 0,
): FixtureLine & { text: string } {
  const f = framesOf(lines).find((l) => l.t >= from && re.test(l.text));
  if (!f) throw new Error(`no frame matches ${re}`);
  return f;
}

/** The last frame of a fixture. */
export function lastFrame(lines: FixtureLine[]): FixtureLine & { text: string } {
  const f = framesOf(lines).at(-1);
  if (!f) throw new Error('no frames');
  return f;
}

/** Time of the first `input` line. */
export function inputTime(lines: FixtureLine[], nth = 0): number {
  const i = lines.filter((l) => l.type === 'input')[nth];
  if (!i) throw new Error('no input line');
  return i.t;
}
