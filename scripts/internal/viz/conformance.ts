import type { Chart } from '../../../test/model/seed-diagrams.js';
import { edgeKey, type MachineGraph } from './edges.js';

/**
 * Differences between a machine and its chart in statecharts.md, one sentence each; empty when
 * the machine conforms. For a seed chart: same states and initial state, every seed edge and
 * every listed extension present, no other edge, only event names the chart uses. For a prose
 * chart: same states, the edges the prose states present, only event names the chart uses.
 */
export function checkConformance(
  chart: Chart,
  graph: MachineGraph,
  inputs: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  const where = `${graph.id} (${chart.section})`;

  const states = new Set(graph.states);
  for (const s of chart.states) {
    if (!states.has(s)) problems.push(`${where}: state "${s}" is missing from the machine`);
  }
  const chartStates = new Set(chart.states);
  for (const s of graph.states) {
    if (!chartStates.has(s)) problems.push(`${where}: state "${s}" is not in the chart`);
  }

  const chartEvents = new Set([...chart.events, ...inputs]);
  for (const e of graph.events) {
    if (!chartEvents.has(e)) problems.push(`${where}: event "${e}" is not named in the chart`);
  }
  // A raw input is only ever classified: it changes no state itself, it raises chart events.
  for (const rule of graph.rules) {
    for (const b of rule.branches) {
      if (b.raises !== null && !chart.events.includes(b.raises)) {
        problems.push(`${where}: ${rule.input} raises "${b.raises}", not a chart event`);
      }
    }
  }

  const present = new Set(graph.edges.map(edgeKey));
  const required = chart.kind === 'seed' ? chart.seed : chart.stated;
  for (const edge of required) {
    if (!present.has(edgeKey(edge))) {
      problems.push(`${where}: ${chart.kind} edge missing: ${edgeKey(edge)}`);
    }
  }

  if (chart.kind === 'seed') {
    if (graph.initial !== chart.initial) {
      problems.push(`${where}: initial state is "${graph.initial}", chart says "${chart.initial}"`);
    }
    for (const edge of chart.extensions) {
      if (!present.has(edgeKey(edge))) {
        problems.push(`${where}: listed extension missing: ${edgeKey(edge)}`);
      }
    }
    const allowed = new Set([...chart.seed, ...chart.extensions].map(edgeKey));
    for (const edge of graph.edges) {
      if (!allowed.has(edgeKey(edge))) {
        problems.push(`${where}: edge is neither seed nor listed extension: ${edgeKey(edge)}`);
      }
    }
  }
  return problems;
}
