import type { Chart } from '../../../test/model/seed-diagrams.js';
import type { ClassifiedEdge, MachineGraph } from './edges.js';

/** Everything a renderer needs to draw one machine. */
export interface Diagram {
  readonly graph: MachineGraph;
  readonly edges: readonly ClassifiedEdge[];
  readonly chart?: Chart;
}

/**
 * Text of an edge label: `event`, `event [guard]` or `[guard]` for eventless edges, and, for an
 * event the machine raises from a raw input, `⇐ rule` with the guards that raise it.
 */
export function edgeLabel(edge: ClassifiedEdge): string {
  const guard = edge.guard === undefined ? '' : `[${edge.guard}]`;
  const via = edge.via?.length ? `⇐ ${edge.via.join(' | ')}` : '';
  return [edge.event ?? '', guard, via].filter((part) => part !== '').join(' ');
}
