import type { Chart } from '../../machines/seed.js';
import type { ClassifiedEdge, MachineGraph } from './edges.js';

/** Everything a renderer needs to draw one machine. */
export interface Diagram {
  readonly graph: MachineGraph;
  readonly edges: readonly ClassifiedEdge[];
  readonly chart?: Chart;
}

/** Text of an edge label: `event`, `event [guard]` or `[guard]` for eventless edges. */
export function edgeLabel(edge: ClassifiedEdge): string {
  const guard = edge.guard === undefined ? '' : `[${edge.guard}]`;
  return [edge.event ?? '', guard].filter((part) => part !== '').join(' ');
}
