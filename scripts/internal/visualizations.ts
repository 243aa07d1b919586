import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { catalog, type CatalogEntry } from './viz/catalog.js';
import { toDot } from './viz/dot.js';
import { classifyEdges, readMachine } from './viz/edges.js';
import { toMermaid } from './viz/mermaid.js';
import type { Diagram } from './viz/model.js';

export { catalog };

/** The checked-in output folder. */
export const visualizationsDir = fileURLToPath(new URL('../../visualizations/', import.meta.url));

let graphviz: Promise<Graphviz> | undefined;

function diagramOf(entry: CatalogEntry): Diagram {
  const graph = readMachine(entry.machine, entry.inputs);
  return {
    graph,
    edges: classifyEdges(graph.edges, entry.chart, graph.rules),
    ...(entry.chart ? { chart: entry.chart } : {}),
  };
}

/** The machine's classification rules as Markdown: per raw input, its branches in order. */
function rulesSection(diagram: Diagram): string[] {
  const rules = diagram.graph.rules;
  if (rules.length === 0) return [];
  const lines = [
    '',
    'Rules (raw inputs, first match wins; `*` is every state without rules of its own):',
    '',
    '| state | input | # | guard | actions |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const rule of rules) {
    rule.branches.forEach((b, i) => {
      lines.push(
        `| ${rule.scope} | \`${rule.input}\` | ${i + 1} | ${b.guard ?? '(otherwise)'} | ${b.actions.join(', ') || '—'} |`,
      );
    });
  }
  return lines;
}

function indexPage(
  entries: readonly { entry: CatalogEntry; id: string; mermaid: string; diagram: Diagram }[],
): string {
  const lines = [
    '# State machine diagrams',
    '',
    'Generated from `machines/` by `npm run visualize`; `npm run visualize -- --check` fails when',
    'a file here differs from what the machines produce. Do not edit these files by hand.',
    '',
    'Edge labels are `event [guard]`; an eventless transition shows only `[guard]`. Edges that',
    'are not in the seed diagram of `statecharts.md` are extensions: labelled `(ext)`, and drawn',
    'dashed and coloured in the SVGs (Mermaid state diagrams cannot style single edges).',
    'A chart event that the machine raises itself from a raw input (an observation, a probe, a',
    'frame) shows `⇐ guard` on its edge: the classification rule that raises it from that state.',
    "Each machine's rules are listed under its diagram, in the order they are tried.",
    '',
    ...entries.map(({ entry, id }) => `- [${id}](#${id.toLowerCase()}): ${entry.description}`),
  ];
  for (const { entry, id, mermaid, diagram } of entries) {
    lines.push(
      '',
      `## ${id}`,
      '',
      entry.description,
      '',
      `Files: [${id}.mmd](${id}.mmd) · [${id}.svg](${id}.svg)`,
      '',
      '```mermaid',
      mermaid.trimEnd(),
      '```',
      ...rulesSection(diagram),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Every file of visualizations/ as it should be now: `<id>.mmd`, `<id>.svg` for each machine
 * of the catalog, `<id>.seed.svg` (its seed transitions only) for each one with extensions, and
 * `index.md`. Keys are file names in sorted order; output is byte-stable.
 */
export async function generateVisualizations(): Promise<Map<string, string>> {
  graphviz ??= Graphviz.load();
  const gv = await graphviz;
  const files = new Map<string, string>();
  const rendered = catalog.map((entry) => {
    const diagram = diagramOf(entry);
    const id = diagram.graph.id;
    const mermaid = toMermaid(diagram);
    files.set(`${id}.mmd`, mermaid);
    files.set(`${id}.svg`, gv.dot(toDot(diagram), 'svg'));
    // The seed transitions alone, laid out without the extensions: readable at a glance.
    if (diagram.edges.some((e) => e.extension)) {
      const seed = { ...diagram, edges: diagram.edges.filter((e) => !e.extension) };
      files.set(`${id}.seed.svg`, gv.dot(toDot(seed), 'svg'));
    }
    return { entry, id, mermaid, diagram };
  });
  files.set('index.md', indexPage(rendered));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One way a folder differs from the generated files. */
export interface VisualizationDiff {
  readonly file: string;
  readonly problem: 'differs' | 'missing' | 'unexpected';
}

/** Compares a folder with the expected files: changed, missing and extra files, sorted. */
export async function diffVisualizations(
  dir: string,
  expected: ReadonlyMap<string, string>,
): Promise<VisualizationDiff[]> {
  const present = new Set(
    (await readdir(dir, { withFileTypes: true }).catch(() => []))
      .filter((d) => d.isFile())
      .map((d) => d.name),
  );
  const diffs: VisualizationDiff[] = [];
  for (const [file, content] of expected) {
    if (!present.has(file)) diffs.push({ file, problem: 'missing' });
    else if ((await readFile(`${dir}/${file}`, 'utf8')) !== content) {
      diffs.push({ file, problem: 'differs' });
    }
  }
  for (const file of present) {
    if (!expected.has(file)) diffs.push({ file, problem: 'unexpected' });
  }
  return diffs.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
