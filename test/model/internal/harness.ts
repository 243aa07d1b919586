import { describe, expect, it } from 'vitest';
import type { AnyStateMachine, EventObject } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { edgeKey, machineEdges, traceMicrosteps, type Edge } from './transitions.js';

/** The real system under test, driven by one abstract event at a time. */
export interface Sut {
  /**
   * Produces `event` on the real system from raw inputs (observations, frames, probe outcomes,
   * virtual time) while the model is in `from`; returns the transitions the system reported.
   */
  step(event: EventObject, from: string): Edge[];
  /** The state the system is in now. */
  state(): string;
  dispose(): void;
}

/** One generated path: its events, the model state after each, and the microsteps of each. */
export interface GeneratedPath {
  label: string;
  input: unknown;
  events: EventObject[];
  states: string[];
  microsteps: Edge[][];
}

export interface ModelSpec {
  name: string;
  machine: AnyStateMachine;
  /** One model per input (e.g. with and without `stalledIsTerminal`). */
  inputs: readonly unknown[];
  createSut(input: unknown): Sut;
}

const valueOnly = (s: { value: unknown }): string => JSON.stringify(s.value);

/**
 * Shortest paths (states are told apart by the transition that entered them, so every
 * event-driven edge gets a path) plus simple paths over state values (longer histories).
 */
export function generatePaths(machine: AnyStateMachine, input: unknown): GeneratedPath[] {
  const model = createTestModel(machine, input === undefined ? {} : { input });
  const raw = [
    ...model.getShortestPaths(),
    ...model.getSimplePaths({ serializeState: valueOnly as never }),
  ];
  const seen = new Set<string>();
  const out: GeneratedPath[] = [];
  for (const p of raw) {
    const steps = p.steps.filter((s) => s.event.type !== 'xstate.init');
    const events = steps.map((s) => s.event as EventObject);
    const label = events.map((e) => e.type).join(' → ') || '(initial)';
    if (seen.has(label) || events.length === 0) continue;
    seen.add(label);
    out.push({
      label,
      input,
      events,
      states: steps.map((s) => String(s.state.value)),
      microsteps: traceMicrosteps(machine, input, events),
    });
  }
  return out;
}

function inputLabel(input: unknown): string {
  return input === undefined ? 'default input' : JSON.stringify(input);
}

/**
 * Generated path tests for one machine: each path drives the real system and checks, after
 * every step, the reported transitions and the state against the model; then checks that the
 * paths together traverse every transition of the machine definition.
 */
export function describeModel(spec: ModelSpec): void {
  const all = machineEdges(spec.machine);
  const byInput = spec.inputs.map((input) => ({
    input,
    paths: generatePaths(spec.machine, input),
  }));

  describe(`${spec.name} model`, () => {
    for (const { input, paths } of byInput) {
      describe(inputLabel(input), () => {
        it.each(paths.map((p) => [p.label, p] as const))('%s', (_label, path) => {
          const sut = spec.createSut(path.input);
          try {
            let from = sut.state();
            path.events.forEach((event, i) => {
              const where = `step ${i + 1} (${event.type} from ${from})`;
              const reported = sut.step(event, from);
              expect(reported.map(edgeKey), where).toEqual(path.microsteps[i]!.map(edgeKey));
              expect(sut.state(), where).toBe(path.states[i]);
              from = path.states[i]!;
            });
          } finally {
            sut.dispose();
          }
        });
      });
    }

    it('traverses every transition of the machine', () => {
      const known = new Set(all.map(edgeKey));
      const covered = new Set<string>();
      for (const { paths } of byInput) {
        for (const p of paths) for (const e of p.microsteps.flat()) covered.add(edgeKey(e));
      }
      const unknownEdges = [...covered].filter((k) => !known.has(k));
      const missing = [...known].filter((k) => !covered.has(k));
      console.log(
        `coverage ${spec.name}: ${known.size - missing.length}/${known.size} transitions`,
      );
      expect(unknownEdges).toEqual([]);
      expect(missing).toEqual([]);
      expect(known.size).toBeGreaterThan(0);
    });
  });
}
