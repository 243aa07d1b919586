import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkLinks,
  checkPaths,
  checkReferences,
  describeProblems,
  findReferences,
  listFiles,
} from './internal/references.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const docs = ['README.md', ...listFiles(root, 'docs', ['.md'])];
const code = [
  ...listFiles(root, 'src', ['.ts', '.mjs', '.js']),
  ...listFiles(root, 'machines', ['.ts']),
];

/**
 * Code comments are held to the README's rule: a path that exists (`docs/statecharts.md §2`),
 * and a file named before every `§`.
 */
const strictCode = true;

describe('references to the spec resolve inside the repository', () => {
  it('README.md and docs/ name existing files and numbered headings', () => {
    const problems = checkReferences(root, docs, { strict: true });
    expect(describeProblems(problems)).toBe('');
  });

  it('every relative link of README.md and docs/ reaches a file and, into Markdown, a heading', () => {
    expect(describeProblems(checkLinks(root, docs))).toBe('');
  });

  it('every repository path README.md and docs/ name in backticks exists', () => {
    expect(describeProblems(checkPaths(root, docs))).toBe('');
  });

  it('src/ and machines/ cite files docs/ has and sections those files have', () => {
    expect(code.length).toBeGreaterThan(50);
    expect(describeProblems(checkReferences(root, code, { strict: strictCode }))).toBe('');
  });
});

describe('the reference check itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pw-refs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'docs'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'docs/statecharts.md'), '# S\n\n## 1. One\n\n### 1.2 Sub\n\n## 2. Two\n');
  const write = (file: string, text: string): string => {
    writeFileSync(join(dir, file), text);
    return file;
  };

  it('finds a file, its path, a link around it and every section after it', () => {
    const refs = findReferences(
      'README.md',
      'see [statecharts.md §3](docs/statecharts.md#3-timers) and contracts.md §1/§2, §4–§5',
    );
    expect(refs.map((r) => [r.written, r.href, r.sections])).toEqual([
      ['statecharts.md', 'docs/statecharts.md#3-timers', ['3']],
      ['contracts.md', null, ['1', '2', '4', '5']],
    ]);
  });

  it('accepts a path that exists with its numbered headings, subsections included', () => {
    const ok = write(
      'README.md',
      'see docs/statecharts.md §1, §1.2 and `docs/statecharts.md` §2\n',
    );
    expect(checkReferences(dir, [ok], { strict: true })).toEqual([]);
  });

  it('fails on a section with no heading, a missing file, and a § that names no file', () => {
    const bad = write(
      'bad.md',
      'docs/statecharts.md §3\ndocs/architecture.md §1\nthe rule (§2)\ndocs/statecharts.md §1.3\n',
    );
    const messages = checkReferences(dir, [bad], { strict: true }).map((p) => p.message);
    expect(messages).toEqual([
      'docs/statecharts.md has no heading numbered 3 (cited as §3)',
      'docs/architecture.md: no such file in the repository (docs/architecture.md is missing)',
      '§2 names no file (write the file before it)',
      'docs/statecharts.md has no heading numbered 1.3 (cited as §1.3)',
    ]);
  });

  it('holds code to the bare name only when asked, and still checks its sections', () => {
    const comment = write(
      'src/a.ts',
      '// statecharts.md §1, then\n// §2 of it; statecharts.md §9\n',
    );
    expect(checkReferences(dir, [comment], { strict: false }).map((p) => p.message)).toEqual([
      'docs/statecharts.md has no heading numbered 9 (cited as §9)',
    ]);
    expect(checkReferences(dir, [comment], { strict: true }).map((p) => p.line)).toEqual([1, 2, 2]);
  });

  it('fails on a path in backticks that does not exist, and leaves patterns alone', () => {
    const paths = write(
      'paths.md',
      '`docs/statecharts.md` `src/gone.ts` `src/profiles/<id>/` `src/`\n',
    );
    expect(checkPaths(dir, [paths]).map((p) => p.message)).toEqual(['src/gone.ts: no such path']);
  });

  it('fails on a link to a missing file or a missing anchor', () => {
    const links = write(
      'links.md',
      '[a](docs/statecharts.md#1-one) [b](docs/statecharts.md#9-nine) [c](docs/nope.md) [d](https://x.y/z)\n',
    );
    expect(checkLinks(dir, [links]).map((p) => p.message)).toEqual([
      'docs/statecharts.md#9-nine: docs/statecharts.md has no heading with the anchor #9-nine',
      'docs/nope.md: no such file',
    ]);
  });
});
