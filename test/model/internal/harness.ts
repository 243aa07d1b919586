import { describe, expect, it } from 'vitest';
import type { AnyStateMachine, EventObject } from 'xstate';
import { createTestModel } from 'xstate/graph';
import type { terminalMachine } from '../../../machines/terminal.js';
import type { supervisorMachine } from '../../../machines/supervisor.js';
import type { witnessMachine } from '../../../machines/witness.js';
import type { ChartLogic } from '../../../src/kernel/charts.js';
import { edgeKey, machineEdges, traceMicrosteps, type Edge } from './transitions.js';

/** Machines a system under test runs instead of those in machines/ (to show a mutant is caught). */
export type MachineOverrides = Partial<
  ChartLogic & {
    terminal: typeof terminalMachine;
    supervisor: typeof supervisorMachine;
    witness: typeof witnessMachine;
  }
>;

/** The real system under test, driven by one abstract event at a time. */
export interface Sut {
  /**
   * Produces `event` on the real system from raw inputs (observations, frames, probe outcomes,
   * virtual time) while the model is in `from`; returns the transitions the system reported.
   */
  step(event: EventObject, from: string): Edge[] | Promise<Edge[]>;
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
  /** The test model: built from the seed diagrams (or the spec's prose), never from machines/. */
  model: AnyStateMachine;
  /**
   * Whether the system reports a transition to the state it is in (the last-turn chart records
   * a new turn with the same outcome); otherwise such model steps expect no report.
   */
  selfTransitions?: boolean;
  /** One model per input (e.g. with and without `stalledIsTerminal`). */
  inputs: readonly unknown[];
  createSut(input: unknown, machines?: MachineOverrides): Sut;
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

/** Runs one generated path against a fresh system; throws on the first disagreement. */
async function runPath(
  spec: ModelSpec,
  path: GeneratedPath,
  machines?: MachineOverrides,
): Promise<void> {
  const reported = (edges: Edge[]) =>
    spec.selfTransitions ? edges : edges.filter((e) => e.from !== e.to);
  const sut = spec.createSut(path.input, machines);
  try {
    let from = sut.state();
    for (const [i, event] of path.events.entries()) {
      const where = `step ${i + 1} (${event.type} from ${from})`;
      const got = await sut.step(event, from);
      expect(reported(got).map(edgeKey), where).toEqual(reported(path.microsteps[i]!).map(edgeKey));
      expect(sut.state(), where).toBe(path.states[i]);
      from = path.states[i]!;
    }
  } finally {
    sut.dispose();
  }
}

/** How many of the spec's generated paths fail when the system runs these machines instead. */
export async function failingPaths(
  spec: ModelSpec,
  machines: MachineOverrides,
): Promise<{ failed: number; total: number }> {
  let failed = 0;
  let total = 0;
  for (const input of spec.inputs) {
    for (const path of generatePaths(spec.model, input)) {
      total += 1;
      try {
        await runPath(spec, path, machines);
      } catch {
        failed += 1;
      }
    }
  }
  return { failed, total };
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
  const all = machineEdges(spec.model);
  const byInput = spec.inputs.map((input) => ({
    input,
    paths: generatePaths(spec.model, input),
  }));

  describe(`${spec.name} model`, () => {
    for (const { input, paths } of byInput) {
      describe(inputLabel(input), () => {
        it.each(paths.map((p) => [p.label, p] as const))('%s', (_label, path) =>
          runPath(spec, path),
        );
      });
    }

    it('traverses every transition of the model', () => {
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
