import type { Command } from 'commander';
import type { AnyStateMachine } from 'xstate';
import * as machines from '../../machines/index.js';
import { PanewardError } from '../errors.js';

/** The machines by their ids (`readiness`, `completion`, ..., `terminal`, `supervisor`). */
export function machinesById(): Map<string, AnyStateMachine> {
  const out = new Map<string, AnyStateMachine>();
  for (const value of Object.values(machines)) {
    if (value && typeof value === 'object' && 'config' in value && 'id' in value) {
      const m = value as AnyStateMachine;
      out.set(m.id, m);
    }
  }
  return out;
}

/**
 * A machine's config as JSON, the form Stately's editor imports: states, transitions, named
 * guards and actions as they are; a built-in action (`raise`) as its type with its event;
 * functions that compute context or input are left out (they are code, not the chart).
 */
export function machineJson(machine: AnyStateMachine): unknown {
  return toJson(machine.config);
}

function toJson(value: unknown): unknown {
  if (typeof value === 'function') {
    const fn = value as { type?: unknown; event?: unknown };
    if (typeof fn.type === 'string' && fn.type.startsWith('xstate.')) {
      return {
        type: fn.type,
        ...(fn.event !== undefined && typeof fn.event !== 'function' ? { event: fn.event } : {}),
      };
    }
    return undefined;
  }
  if (Array.isArray(value)) return value.map(toJson).filter((v) => v !== undefined);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const j = toJson(v);
      if (j !== undefined) out[k] = j;
    }
    return out;
  }
  return value;
}

export function registerMachines(program: Command): void {
  program
    .command('machines')
    .description(
      "Print paneward's statecharts: their ids and states, or with --json their definitions in the JSON form Stately's editor imports.",
    )
    .argument('[id]', 'only this machine (readiness, completion, turnPhase, ...)')
    .option('--json', 'the definition as JSON')
    .action((id: string | undefined, opts: { json?: boolean }) => {
      const all = machinesById();
      if (id !== undefined && !all.has(id)) {
        throw new PanewardError(
          'invalid_input',
          `machines: argument \`id\`: no machine ${id} (one of ${[...all.keys()].join(', ')})`,
        );
      }
      const chosen = id === undefined ? [...all] : [[id, all.get(id)!] as const];
      if (opts.json) {
        const json =
          id === undefined
            ? Object.fromEntries(chosen.map(([k, m]) => [k, machineJson(m)]))
            : machineJson(chosen[0]![1]);
        process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
        return;
      }
      for (const [k, m] of chosen) {
        const states = Object.keys((m.config.states ?? {}) as object);
        process.stdout.write(`${k.padEnd(12)} ${states.join(', ')}\n`);
      }
    });
}
