import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';
import { FIXTURES, fixturePath, recordingNames } from './ground-truth.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The lines `paneward replay` prints, produced through the library call. */
function printedLines(file: string): string[] {
  const out: string[] = [];
  replayRecording(readJsonLines(file), (s) => out.push(JSON.stringify(s)));
  return out;
}

const recordings = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => recordingNames(d.name).map((name) => `${d.name}/${name}.jsonl`))
  .sort();

describe('replay determinism', () => {
  it('finds the recordings', () => {
    expect(recordings.length).toBeGreaterThanOrEqual(39);
  });

  it.each(recordings)('%s prints identical lines when replayed twice', (name) => {
    const file = `${FIXTURES}${name}`;
    const first = printedLines(file);
    expect(first.length).toBeGreaterThan(1);
    expect(printedLines(file)).toEqual(first);
  });

  it('`paneward replay FILE` prints the same lines as the library call', async () => {
    const file = fixturePath('claude_code', 'permission-prompt');
    const cli = await execa('node', ['bin/paneward.js', 'replay', file], {
      cwd: ROOT,
      reject: false,
    });
    expect(cli.stderr).toBe('');
    expect(cli.exitCode).toBe(0);
    const lines = cli.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toEqual(printedLines(file));
  });
});
