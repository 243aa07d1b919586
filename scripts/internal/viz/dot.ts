import type { ClassifiedEdge } from './edges.js';
import type { Diagram } from './model.js';
import { edgeLabel } from './model.js';

/** Colours of the drawings; extensions are dashed as well, so they survive grey-scale print. */
export const palette = { seed: '#1f2937', extension: '#c2410c', state: '#f8fafc' } as const;

const quote = (text: string): string =>
  `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function edgeStyle(extension: boolean): string {
  return extension
    ? `style=dashed, color=${quote(palette.extension)}, fontcolor=${quote(palette.extension)}`
    : `color=${quote(palette.seed)}, fontcolor=${quote(palette.seed)}`;
}

/** Edges between the same two states of the same kind are drawn once, one label line each. */
function mergeParallel(edges: readonly ClassifiedEdge[]): string[] {
  const groups = new Map<string, { edge: ClassifiedEdge; labels: string[] }>();
  for (const edge of edges) {
    const key = `${edge.from}\u0000${edge.to}\u0000${edge.extension}`;
    const group = groups.get(key) ?? { edge, labels: [] };
    group.labels.push(edgeLabel(edge) + (edge.extension ? ' (ext)' : ''));
    groups.set(key, group);
  }
  return [...groups.values()].map(
    ({ edge, labels }) =>
      `  ${quote(edge.from)} -> ${quote(edge.to)} [label=${quote(labels.join('\n'))}, ${edgeStyle(edge.extension)}];`,
  );
}

/** Legend entries: the kinds of edge this drawing actually has. */
function legend(hasSeed: boolean, hasExtensions: boolean): string[] {
  const entries: [string, boolean][] = hasSeed
    ? [['seed diagram', false]]
    : [['transition (no seed diagram)', false]];
  if (hasExtensions) entries.push(['extension (ext)', true]);
  return entries.flatMap(([label, extension], i) => [
    `    "__legend_${i}_from" [label=""]; "__legend_${i}_to" [label=""];`,
    `    "__legend_${i}_from" -> "__legend_${i}_to" [label=${quote(label)}, ${edgeStyle(extension)}];`,
  ]);
}

/** Graphviz DOT text of a machine, with a start marker, final markers and a legend. */
export function toDot({ graph, edges, chart }: Diagram): string {
  const title = chart ? `${graph.id} (statecharts.md ${chart.section})` : graph.id;
  const finals = new Set(graph.finals);
  const lines = [
    `digraph ${quote(graph.id)} {`,
    `  graph [label=${quote(title)}, labelloc=t, fontname="Helvetica", fontsize=16, rankdir=LR, nodesep=0.5, ranksep=0.8];`,
    `  node [shape=box, style="rounded,filled", fillcolor=${quote(palette.state)}, fontname="Helvetica", fontsize=12, margin="0.25,0.06"];`,
    '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.7];',
    '  "__start" [shape=circle, style=filled, fillcolor="black", label="", width=0.18, fixedsize=true];',
    ...graph.states.map((s) => `  ${quote(s)}${finals.has(s) ? ' [peripheries=2]' : ''};`),
    `  "__start" -> ${quote(graph.initial)} [color=${quote(palette.seed)}];`,
    ...mergeParallel(edges),
    ...graph.finals.flatMap((s) => [
      `  ${quote(`__end_${s}`)} [shape=doublecircle, style=filled, fillcolor="black", label="", width=0.12, fixedsize=true];`,
      `  ${quote(s)} -> ${quote(`__end_${s}`)} [color=${quote(palette.seed)}];`,
    ]),
    '  subgraph "cluster_legend" {',
    '    label="legend"; fontsize=11; style="rounded"; color="#9ca3af";',
    '    node [shape=plaintext, style="", fontsize=10, width=0.1, height=0.2];',
    ...legend(
      chart?.kind === 'seed',
      edges.some((e) => e.extension),
    ),
    '  }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}
