import type { Diagram } from './model.js';
import { edgeLabel } from './model.js';

// stateDiagram ids stop at ':', whitespace, '-' and '{'; our state names never contain them.
const id = (state: string): string => state.replace(/[^A-Za-z0-9_.]/g, '_');

/**
 * Mermaid `stateDiagram-v2` text of a machine. Mermaid state diagrams cannot style single
 * transitions, so extension edges are marked by an `(ext)` suffix on their label.
 */
export function toMermaid({ graph, edges, chart }: Diagram): string {
  const source = chart ? `; chart: statecharts.md ${chart.section}` : '';
  const lines = [
    'stateDiagram-v2',
    `  %% ${graph.id}: generated from machines/ by npm run visualize${source}`,
    chart?.kind === 'seed'
      ? '  %% labels: event [guard]; (ext) = not in the seed diagram'
      : '  %% labels: event [guard]',
    ...graph.states.map((s) => `  ${id(s)}`),
    `  [*] --> ${id(graph.initial)}`,
    ...edges.map((e) => {
      const label = edgeLabel(e) + (e.extension ? ' (ext)' : '');
      return `  ${id(e.from)} --> ${id(e.to)} : ${label}`;
    }),
    ...graph.finals.map((s) => `  ${id(s)} --> [*]`),
  ];
  return `${lines.join('\n')}\n`;
}
