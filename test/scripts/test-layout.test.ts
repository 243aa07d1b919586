/**
 * test/ mirrors the code: every folder of src/ (and src/tooling/'s parts) and machines/ has its
 * tests in the folder of the same path under test/, and a top folder of test/ that is no code's
 * is one of the few that test the whole (end to end, the docs, the package, the attacks).
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const dirs = (path: string): string[] =>
  readdirSync(join(ROOT, path)).filter((d) => statSync(join(ROOT, path, d)).isDirectory());

/** Top folders of test/ that test no one folder of the code, each with what it tests. */
const WHOLE: Record<string, string> = {
  e2e: 'real agent CLIs in real tmux, and the recorders of the fixtures',
  fixtures: 'the recordings every replay reads',
  docs: 'that the docs say what the code does',
  install: 'the packed package, installed as a user installs it',
  model: 'the path tests generated from the diagrams, on every chart',
  scripts: 'the scripts beside the code (the import check, the benchmarks)',
  security: 'attacks on everything that types',
  visualizations: 'that the diagrams are the charts',
};

describe('test/ mirrors the code', () => {
  it('each folder of src/ and machines/ has its tests at the same path', () => {
    const code = [
      ...dirs('src').filter((d) => d !== 'tooling'),
      ...dirs('src/tooling')
        .filter((d) => d !== 'agents')
        .map((d) => `tooling/${d}`),
      'machines',
    ];
    const tested = new Set([...dirs('test'), ...dirs('test/tooling').map((d) => `tooling/${d}`)]);
    for (const d of code) expect(tested, `test/${d}`).toContain(d);
  });

  it('a top folder of test/ is a folder of the code, or one that tests the whole', () => {
    const code = new Set([...dirs('src'), 'machines']);
    for (const d of dirs('test')) {
      expect(
        code.has(d) || d in WHOLE,
        `test/${d}: no src/${d}, and not one that tests the whole`,
      ).toBe(true);
    }
  });
});
