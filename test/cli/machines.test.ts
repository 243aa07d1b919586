import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { createMachine, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { machineJson, machinesById } from '../../src/cli/machines.js';

const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));

/** Every state node id and every transition (source, event, targets) of a machine. */
function shape(m: AnyStateMachine): string[] {
  const out: string[] = [];
  const walk = (node: AnyStateMachine['root']) => {
    out.push(`state ${node.id}`);
    for (const [event, ts] of node.transitions) {
      for (const t of ts) {
        out.push(`${node.id} --${event}--> ${(t.target ?? []).map((x) => x.id).join(',')}`);
      }
    }
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(m.root);
  return out.sort();
}

describe('paneward machines --json', () => {
  it('prints every chart, and each rebuilds into a machine of the same states and transitions', async () => {
    const run = await execa(process.execPath, [BIN, 'machines', '--json']);
    const json = JSON.parse(run.stdout) as Record<string, object>;
    const all = machinesById();
    expect(Object.keys(json).sort()).toEqual([
      'completion',
      'diagnostics',
      'lastTurn',
      'readiness',
      'respawn',
      'supervisor',
      'terminal',
      'turnPhase',
      'watchdog',
      'witness',
    ]);
    for (const [id, machine] of all) {
      const rebuilt = createMachine(json[id] as Parameters<typeof createMachine>[0]);
      expect(shape(rebuilt), id).toEqual(shape(machine));
    }
  });

  it('keeps the rules: named guards and the raised events of the classification', () => {
    const readiness = machineJson(machinesById().get('readiness')!) as {
      on: {
        observation: Array<{
          guard?: string;
          actions?: { type: string; event?: { type: string } };
        }>;
      };
    };
    expect(readiness.on.observation[0]).toEqual({
      guard: 'surface_unsupported_or_disconnected',
      actions: { type: 'xstate.raise', event: { type: 'evt_surface_unsupported_or_disconnected' } },
    });
  });

  it('prints one machine, and names the argument when there is no such machine', async () => {
    const one = await execa(process.execPath, [BIN, 'machines', 'lastTurn', '--json']);
    expect((JSON.parse(one.stdout) as { id: string }).id).toBe('lastTurn');
    const bad = await execa(process.execPath, [BIN, 'machines', 'nope'], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/argument `id`: no machine nope \(one of completion, diagnostics/);
  });
});
