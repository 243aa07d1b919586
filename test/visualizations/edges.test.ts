import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { lastTurnMachine } from '../../machines/lastTurn.js';
import { readinessMachine } from '../../machines/readiness.js';
import { readinessSeed } from '../model/seed-diagrams.js';
import { classifyEdges, edgeKey, readMachine } from '../../scripts/internal/viz/edges.js';

const keys = (edges: readonly Parameters<typeof edgeKey>[0][]): string[] => edges.map(edgeKey);

describe('readMachine', () => {
  it('expands root-level transitions to every state, self-targets included', () => {
    const graph = readMachine(lastTurnMachine);
    expect(graph.initial).toBe('none');
    expect(keys(graph.edges)).toContain('success --evt_success_settled--> success');
    expect(keys(graph.edges)).toContain('known_failure --evt_interrupted--> interrupted');
    expect(keys(graph.edges)).toContain('success --evt_success_retracted--> none');
    expect(graph.edges).toHaveLength(13);
  });

  it('reads eventless guarded transitions as event null with the guard name', () => {
    const graph = readMachine(readinessMachine, ['observation']);
    expect(graph.edges).toContainEqual({
      from: 'stalled',
      event: null,
      to: 'failed',
      guard: 'stalled_is_terminal',
    });
  });

  it('lets a state own an event before its ancestors, unless its candidates are all guarded', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      on: { go: { target: '.b' } },
      states: {
        a: { on: { go: { target: 'c' } } },
        b: { on: { go: { target: 'a', guard: 'maybe' } } },
        c: {},
        done: { type: 'final' },
      },
    });
    expect(keys(readMachine(machine).edges)).toEqual([
      'a --go--> c',
      'b --go[maybe]--> a',
      'b --go--> b',
      'c --go--> b',
    ]);
    expect(readMachine(machine).finals).toEqual(['done']);
  });

  it('names nested states by path, reads targetless transitions as internal self-edges, sorts', () => {
    const machine = createMachine({
      id: 'n',
      initial: 'outer',
      states: {
        outer: {
          initial: 'x',
          on: { leave: { target: 'away' }, tick: { actions: [] } },
          states: { x: { on: { next: { target: 'y' } } }, y: {} },
        },
        away: {},
      },
    });
    const graph = readMachine(machine);
    expect(graph.states).toEqual(['outer', 'outer.x', 'outer.y', 'away']);
    expect(graph.initial).toBe('outer');
    expect(keys(graph.edges)).toEqual([
      'outer.x --leave--> away',
      'outer.x --next--> outer.y',
      'outer.x --tick--> outer.x',
      'outer.y --leave--> away',
      'outer.y --tick--> outer.y',
    ]);
    expect(graph.edges.filter((e) => e.internal).map((e) => e.from)).toEqual([
      'outer.x',
      'outer.y',
    ]);
    expect(graph.events).toEqual(['leave', 'next', 'tick']);
  });
});

describe('classifyEdges', () => {
  it('marks exactly the edges outside the seed diagram', () => {
    const classified = classifyEdges(
      readMachine(readinessMachine, ['observation']).edges,
      readinessSeed,
    );
    expect(keys(classified.filter((e) => e.extension)).sort()).toEqual(
      keys(readinessSeed.extensions).sort(),
    );
    expect(classified.filter((e) => !e.extension)).toHaveLength(readinessSeed.seed.length);
  });

  it('marks nothing without a seed diagram', () => {
    const classified = classifyEdges(readMachine(readinessMachine).edges, undefined);
    expect(classified.some((e) => e.extension)).toBe(false);
  });
});
