import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * Finds the places README.md, docs/ and the code cite the spec documents (`statecharts.md`,
 * `contracts.md`, `architecture.md`) or one of their numbered sections (`§N`, `§N.M`), and says
 * which of them do not resolve to a file of the repository and a heading in it.
 */

export const SPEC_FILES = ['statecharts.md', 'contracts.md', 'architecture.md'] as const;

export interface Reference {
  /** The citing file, relative to the repository root. */
  file: string;
  line: number;
  /** The spec file as written (`docs/statecharts.md`, `statecharts.md`), or null for a bare `§N`. */
  written: string | null;
  /** Where a Markdown link around the reference points, when there is one. */
  href: string | null;
  sections: string[];
}

export interface Problem {
  file: string;
  line: number;
  text: string;
  message: string;
}

/**
 * `strict`: the reference must name a path that exists as written (relative to the citing file,
 * or to the repository root), or sit inside a Markdown link to that file, and a `§N` must follow
 * a file name. Lenient (code comments): a bare file name means the file of that name in docs/,
 * and a `§N` on its own refers to the file last named before it in the same file.
 */
export interface CheckOptions {
  strict: boolean;
}

const SPEC = '(?:statecharts|contracts|architecture)\\.md';
// A path, a spec file name, an optional link close with its href, then the sections after it.
const REFERENCE = new RegExp(
  `((?:\\.{1,2}/|[\\w.-]+/)*)(${SPEC})(#[\\w-]*)?(?:\`)?(?:\\]\\(([^)\\s]*)\\))?` +
    `((?:\\s*(?:§\\s?\\d+(?:\\.\\d+)*)(?:\\s*(?:/|–|-|,|and|or|to)\\s*(?:§\\s?)?\\d+(?:\\.\\d+)*)*)*)`,
  'g',
);
const SECTION = /§\s?(\d+(?:\.\d+)*)|(?:\/|–|-|,|and|or|to)\s*(\d+(?:\.\d+)*)/g;
const BARE_SECTION = /§\s?(\d+(?:\.\d+)*)/g;
// The link whose text contains the reference: `[... statecharts.md §3](docs/statecharts.md#3-...)`.
const LINK = /\[([^\]]*)\]\(([^)\s]+)\)/g;

function sectionsOf(tail: string): string[] {
  const out: string[] = [];
  for (const m of tail.matchAll(SECTION)) out.push((m[1] ?? m[2])!);
  return out;
}

/** Every reference in one file's text. */
export function findReferences(file: string, text: string): Reference[] {
  const refs: Reference[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const links = [...line.matchAll(LINK)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
      href: m[2]!,
    }));
    const covered: [number, number][] = [];
    for (const m of line.matchAll(REFERENCE)) {
      const start = m.index;
      const end = start + m[0].length;
      covered.push([start, end]);
      // The href of a link is where the reference in its text points, not one of its own.
      if (links.some((l) => l.end - l.href.length - 1 <= start && start < l.end)) continue;
      const link = links.find((l) => l.start <= start && end <= l.end);
      refs.push({
        file,
        line: i + 1,
        written: `${m[1] ?? ''}${m[2]!}`,
        href: m[4] ?? link?.href ?? null,
        sections: sectionsOf(m[5] ?? ''),
      });
    }
    for (const m of line.matchAll(BARE_SECTION)) {
      if (covered.some(([s, e]) => s <= m.index && m.index < e)) continue;
      refs.push({ file, line: i + 1, written: null, href: null, sections: [m[1]!] });
    }
  });
  return refs;
}

/** The numbers of a Markdown file's numbered headings: `## 3. Timers` gives `3`. */
export function headingNumbers(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) out.add(m[1]!);
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Files under `dir` (relative to `root`) whose names end in one of `exts`. */
export function listFiles(root: string, dir: string, exts: readonly string[]): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [dir];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(root, rel, exts));
    else if (exts.some((e) => entry.name.endsWith(e))) out.push(rel);
  }
  return out.sort();
}

function resolveWritten(root: string, citing: string, written: string): string | null {
  const candidates = [normalize(join(dirname(citing), written)), normalize(written)];
  return candidates.find((c) => !c.startsWith('..') && existsSync(join(root, c))) ?? null;
}

/** Checks every reference of the given files; an empty list means all resolve. */
export function checkReferences(
  root: string,
  files: readonly string[],
  options: CheckOptions,
): Problem[] {
  const problems: Problem[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = text.split('\n');
    const self = SPEC_FILES.find((s) => file === join('docs', s));
    let lastNamed: string | null = self === undefined ? null : file;
    for (const ref of findReferences(file, text)) {
      const problem = (message: string): void => {
        problems.push({ file, line: ref.line, text: lines[ref.line - 1]!.trim(), message });
      };
      let target: string | null;
      if (ref.written === null) {
        target = self !== undefined ? file : options.strict ? null : lastNamed;
        if (target === null) {
          problem(`§${ref.sections[0]} names no file (write the file before it)`);
          continue;
        }
      } else {
        const name = ref.written.split('/').pop()!;
        const viaLink =
          ref.href !== null && ref.href.split('#')[0]!.endsWith(name)
            ? resolveWritten(root, file, ref.href.split('#')[0]!)
            : null;
        const asWritten = resolveWritten(root, file, ref.written);
        const inDocs = existsSync(join(root, 'docs', name)) ? join('docs', name) : null;
        target = viaLink ?? asWritten ?? (options.strict ? null : inDocs);
        if (target === null) {
          problem(
            inDocs === null
              ? `${ref.written}: no such file in the repository (docs/${name} is missing)`
              : `${ref.written}: no such file from ${file}; write it as a path (${relative(dirname(file), inDocs)}) or link it`,
          );
          continue;
        }
        lastNamed = target;
      }
      const numbers = headingNumbers(readFileSync(join(root, target), 'utf8'));
      for (const n of ref.sections) {
        if (!numbers.has(n)) problem(`${target} has no heading numbered ${n} (cited as §${n})`);
      }
    }
  }
  return problems;
}

/**
 * Every relative Markdown link of the given files: the file it names must exist, and an anchor
 * into a Markdown file must be one of its headings.
 */
export function checkLinks(root: string, files: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const href = m[1]!;
        if (/^[a-z]+:/i.test(href)) continue;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        const problem = (message: string): void => {
          problems.push({ file, line: i + 1, text: line.trim(), message });
        };
        if (target.startsWith('..') || !existsSync(join(root, target))) {
          problem(`${href}: no such file`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md')) {
          if (!anchors(readFileSync(join(root, target), 'utf8')).has(anchor)) {
            problem(`${href}: ${target} has no heading with the anchor #${anchor}`);
          }
        }
      }
    });
  }
  return problems;
}

export function describeProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.message}\n    ${p.text}`).join('\n');
}

/**
 * Every repository path written in backticks (`src/observe/probe.ts`, `test/model/`): it must
 * exist, so a file that moves takes its mentions along. Paths with a placeholder (`<id>`, `*`)
 * are patterns, not paths, and are left alone.
 */
export function checkPaths(root: string, files: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  const path =
    /`((?:\.\.\/)?(?:src|machines|test|scripts|bin|recordings|visualizations|docs)\/[^`\s]*)`/g;
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(path)) {
        const written = m[1]!;
        if (/[<>*{}$]/.test(written)) continue;
        if (resolveWritten(root, file, written) === null) {
          problems.push({
            file,
            line: i + 1,
            text: line.trim(),
            message: `${written}: no such path`,
          });
        }
      }
    });
  }
  return problems;
}
