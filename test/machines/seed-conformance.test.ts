import { describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { readinessMachine } from '../../machines/readiness.js';
import {
  charts,
  lastTurnSeed,
  readinessSeed,
  watchdogSpec,
  type Chart,
  type SeedEdge,
} from '../model/seed-diagrams.js';
import { catalog } from '../../scripts/internal/viz/catalog.js';
import { checkConformance } from '../../scripts/internal/viz/conformance.js';
import { edgeKey, readMachine, type MachineGraph } from '../../scripts/internal/viz/edges.js';

const chartEdges = (chart: Chart): readonly SeedEdge[] =>
  chart.kind === 'seed' ? [...chart.seed, ...chart.extensions] : chart.stated;

describe('machines conform to the charts of statecharts.md', () => {
  it('every chart is implemented by a catalogued machine', () => {
    expect(catalog.map((e) => e.chart?.id).filter(Boolean)).toEqual(charts.map((c) => c.id));
    for (const entry of catalog.filter((e) => e.chart))
      expect(entry.machine.id).toBe(entry.chart?.id);
    // Machines without a seed chart in statecharts.md (the completion witness of
    // docs/witness.md, the §8 actors, and the restart policy of docs/spawn.md, whose model tests
    // are test/model/witness.model.test.ts and test/model/respawn.model.test.ts) are drawn but
    // not checked here.
    expect(catalog.filter((e) => !e.chart).map((e) => e.machine.id)).toEqual([
      'witness',
      'terminal',
      'supervisor',
      'respawn',
    ]);
  });

  for (const entry of catalog.filter((e) => e.chart !== undefined)) {
    const chart = entry.chart as Chart;
    it(`${chart.id}: states, seed edges, extensions and event names`, () => {
      expect(
        checkConformance(chart, readMachine(entry.machine, entry.inputs), entry.inputs),
      ).toEqual([]);
    });
  }
});

describe('seed data is a consistent transcription', () => {
  for (const chart of charts) {
    it(`${chart.id}: edges use declared states and events, no duplicates`, () => {
      const states = new Set(chart.states);
      const events = new Set(chart.events);
      for (const edge of chartEdges(chart)) {
        expect(states.has(edge.from), edgeKey(edge)).toBe(true);
        expect(states.has(edge.to), edgeKey(edge)).toBe(true);
        if (edge.event === null) expect(edge.guard, edgeKey(edge)).toBeTruthy();
        else expect(events.has(edge.event), edgeKey(edge)).toBe(true);
      }
      const keys = chartEdges(chart).map(edgeKey);
      expect(new Set(keys).size).toBe(keys.length);
      if (chart.kind === 'seed') expect(states.has(chart.initial)).toBe(true);
    });
  }

  it('readiness extensions: ready, blocked, failed follow every classification event', () => {
    const target: Record<string, string> = {
      evt_submit_ready: 'ready',
      evt_known_nonready: 'waiting',
      evt_operator_blocked: 'blocked',
      evt_surface_unsupported_or_disconnected: 'failed',
      evt_unknown_for_stall: 'unknown',
    };
    const expected = ['ready', 'blocked', 'failed'].flatMap((from) =>
      Object.entries(target)
        .filter(([, to]) => to !== from)
        .map(([event, to]) => edgeKey({ from, event, to })),
    );
    const listed = readinessSeed.extensions.map(edgeKey);
    expect(listed).toEqual(expect.arrayContaining(expected));
    expect(listed).toHaveLength(expected.length + 1); // + stalled --surface--> failed
  });

  it('last-turn: none and every outcome reach every outcome, success retracts to none', () => {
    const outcomes = {
      success: 'evt_success_settled',
      interrupted: 'evt_interrupted',
      known_failure: 'evt_known_failure',
    };
    const expected = ['none', ...Object.keys(outcomes)].flatMap((from) =>
      Object.entries(outcomes).map(([to, event]) => edgeKey({ from, event, to })),
    );
    expected.push(edgeKey({ from: 'success', event: 'evt_success_retracted', to: 'none' }));
    expect(lastTurnSeed.seed.map(edgeKey).sort()).toEqual(expected.sort());
  });
});

describe('the conformance check catches deviations', () => {
  const graph = readMachine(readinessMachine, ['observation']);
  const withEdges = (edges: MachineGraph['edges']): MachineGraph => ({ ...graph, edges });
  const seedEdge = { from: 'waiting', event: 'evt_submit_ready', to: 'ready' };

  it('a removed seed edge', () => {
    const edges = graph.edges.filter((e) => edgeKey(e) !== edgeKey(seedEdge));
    expect(edges).toHaveLength(graph.edges.length - 1);
    expect(checkConformance(readinessSeed, withEdges(edges), ['observation'])).toEqual([
      expect.stringContaining(`seed edge missing: ${edgeKey(seedEdge)}`),
    ]);
  });

  it('an edge that is neither seed nor listed extension', () => {
    const extra = { from: 'waiting', event: 'evt_unknown_timeout', to: 'stalled' };
    expect(
      checkConformance(readinessSeed, withEdges([...graph.edges, extra]), ['observation']),
    ).toEqual([expect.stringContaining(`neither seed nor listed extension: ${edgeKey(extra)}`)]);
  });

  it('a guard added to a seed edge', () => {
    const edges = graph.edges.map((e) =>
      edgeKey(e) === edgeKey(seedEdge) ? { ...e, guard: 'sometimes' } : e,
    );
    const problems = checkConformance(readinessSeed, withEdges(edges), ['observation']);
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toContain('seed edge missing');
    expect(problems.join('\n')).toContain('[sometimes]');
  });

  it('a listed extension the machine lacks', () => {
    const ext = { from: 'ready', event: 'evt_known_nonready', to: 'waiting' };
    const edges = graph.edges.filter((e) => edgeKey(e) !== edgeKey(ext));
    expect(checkConformance(readinessSeed, withEdges(edges), ['observation'])).toEqual([
      expect.stringContaining(`listed extension missing: ${edgeKey(ext)}`),
    ]);
  });

  it('a renamed state, a wrong initial state and an unnamed event', () => {
    const problems = checkConformance(
      readinessSeed,
      {
        ...graph,
        states: graph.states.map((s) => (s === 'stalled' ? 'stuck' : s)),
        initial: 'unknown',
        events: [...graph.events, 'evt_made_up'],
      },
      ['observation'],
    );
    expect(problems.join('\n')).toContain('state "stalled" is missing');
    expect(problems.join('\n')).toContain('state "stuck" is not in the chart');
    expect(problems.join('\n')).toContain('initial state is "unknown"');
    expect(problems.join('\n')).toContain('event "evt_made_up" is not named');
  });

  it('a prose chart: a stated edge missing; other edges are free', () => {
    const watchdog = readMachine(catalog.find((e) => e.chart === watchdogSpec)!.machine);
    const stated = watchdogSpec.stated[0]!;
    const edges = watchdog.edges.filter((e) => edgeKey(e) !== edgeKey(stated));
    expect(checkConformance(watchdogSpec, { ...watchdog, edges })).toEqual([
      expect.stringContaining(`prose edge missing: ${edgeKey(stated)}`),
    ]);
    const extra = { from: 'disabled', event: 'evt_session_finished', to: 'finished' };
    expect(
      checkConformance(watchdogSpec, { ...watchdog, edges: [...watchdog.edges, extra] }),
    ).toEqual([]);
  });

  it('end to end: a machine built without one seed transition fails the check', () => {
    const config = readinessMachine.config;
    const states = config.states as Record<string, { on?: Record<string, unknown> }>;
    const { evt_submit_ready: _dropped, ...waitingOn } = states.waiting!.on!;
    const broken: AnyStateMachine = createMachine({
      ...config,
      states: { ...states, waiting: { ...states.waiting, on: waitingOn } },
    } as Parameters<typeof createMachine>[0]);
    expect(
      checkConformance(readinessSeed, readMachine(broken, ['observation']), ['observation']),
    ).toEqual([expect.stringContaining(`seed edge missing: ${edgeKey(seedEdge)}`)]);
  });
});
