import { setup, type AnyStateMachine } from 'xstate';
import type { SeedChart } from '../seed-diagrams.js';

/** Guards of a chart's eventless edges, read from the test input (e.g. `stalledIsTerminal`). */
export type ModelGuards = Readonly<Record<string, (input: Record<string, unknown>) => boolean>>;

/**
 * The test model of a chart, built from its transcription in seed-diagrams.ts alone (seed edges
 * and the listed extensions): the expected answer of the generated path tests. The runtime
 * machines in machines/ are never consulted, so a wrong rule there shows up as a path whose
 * system under test ends somewhere the diagram does not.
 */
export function seedModel(chart: SeedChart, guards: ModelGuards = {}): AnyStateMachine {
  const edges = [...chart.seed, ...chart.extensions];
  const finals = new Set(chart.finals ?? []);
  const states: Record<string, object> = {};
  for (const state of chart.states) {
    if (finals.has(state)) {
      states[state] = { type: 'final' };
      continue;
    }
    const on: Record<string, { target: string }> = {};
    const always: Array<{ guard: string; target: string }> = [];
    for (const e of edges.filter((x) => x.from === state)) {
      if (e.event === null) always.push({ guard: e.guard!, target: e.to });
      else on[e.event] = { target: e.to };
    }
    states[state] = { on, ...(always.length > 0 ? { always } : {}) };
  }
  return setup({
    types: { context: {} as Record<string, unknown>, input: {} as Record<string, unknown> },
    guards: Object.fromEntries(
      Object.entries(guards).map(([name, rule]) => [
        name,
        ({ context }: { context: Record<string, unknown> }) => rule(context),
      ]),
    ),
  }).createMachine({
    id: `${chart.id}-model`,
    initial: chart.initial,
    context: ({ input }: { input?: Record<string, unknown> }) => ({ ...(input ?? {}) }),
    states,
  } as never) as unknown as AnyStateMachine;
}
