import { beforeAll, describe, expect, it } from 'vitest';
import { generateVisualizations } from '../../scripts/internal/visualizations.js';
import { catalog } from '../../scripts/internal/viz/catalog.js';
import { classifyEdges, readMachine } from '../../scripts/internal/viz/edges.js';

describe('generated diagrams', () => {
  let files: Map<string, string>;
  beforeAll(async () => {
    files = await generateVisualizations();
  });

  it('has an .mmd and an .svg per catalogued machine, a .seed.svg where it has extensions, and index.md', () => {
    const expected = catalog.flatMap((entry) => {
      const graph = readMachine(entry.machine, entry.inputs);
      const id = graph.id;
      const ext = classifyEdges(graph.edges, entry.chart, graph.rules).some((e) => e.extension);
      return [`${id}.mmd`, `${id}.svg`, ...(ext ? [`${id}.seed.svg`] : [])];
    });
    expect([...files.keys()].sort()).toEqual([...expected, 'index.md'].sort());
    // The seed drawing has none of the dashed extension edges; the whole one has them.
    for (const [name, svg] of files) {
      if (!name.endsWith('.seed.svg')) continue;
      expect(svg).not.toContain('(ext)');
      expect(files.get(name.replace('.seed.svg', '.svg'))).toContain('(ext)');
    }
  });

  for (const entry of catalog) {
    const graph = readMachine(entry.machine, entry.inputs);
    const edges = classifyEdges(graph.edges, entry.chart, graph.rules);
    const extensions = edges.filter((e) => e.extension).length;

    it(`${graph.id}.mmd: initial, finals, one line per edge, (ext) on extensions only`, () => {
      const mmd = files.get(`${graph.id}.mmd`)!;
      const lines = mmd.split('\n');
      expect(lines[0]).toBe('stateDiagram-v2');
      expect(lines).toContain(`  [*] --> ${graph.initial}`);
      for (const s of graph.finals) expect(lines).toContain(`  ${s} --> [*]`);
      const transitions = lines.filter((l) => / --> /.test(l) && !l.includes('[*]'));
      expect(transitions).toHaveLength(edges.length);
      expect(transitions.filter((l) => l.endsWith(' (ext)'))).toHaveLength(extensions);
      // Mermaid ends a transition label at ':' or ';'.
      for (const l of transitions) expect(l.split(' : ')[1]).not.toMatch(/[:;]/);
    });

    it(`${graph.id}.svg: every state drawn, extensions dashed, legend present`, () => {
      const svg = files.get(`${graph.id}.svg`)!;
      expect(svg.startsWith('<?xml')).toBe(true);
      for (const s of graph.states) expect(svg).toContain(`<title>${s}</title>`);
      expect(svg).toContain('legend');
      const dashedEdges = svg.match(/<path[^>]*stroke-dasharray[^>]*>/g) ?? [];
      // Parallel extension edges are drawn as one; the legend adds one sample when there are any.
      const drawn = new Set(edges.filter((e) => e.extension).map((e) => `${e.from}>${e.to}`));
      expect(dashedEdges).toHaveLength(drawn.size + (extensions > 0 ? 1 : 0));
    });
  }

  it('index.md links every file and embeds every Mermaid diagram', () => {
    const index = files.get('index.md')!;
    for (const entry of catalog) {
      const id = entry.machine.id;
      expect(index).toContain(`[${id}.mmd](${id}.mmd)`);
      expect(index).toContain(`[${id}.svg](${id}.svg)`);
      expect(index).toContain(`\`\`\`mermaid\n${files.get(`${id}.mmd`)!.trimEnd()}\n\`\`\``);
      expect(index).toContain(entry.description);
    }
  });
});
