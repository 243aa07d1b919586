import { describe, expect, it } from 'vitest';
import { createMachine, emit, enqueueActions, type AnyStateMachine } from 'xstate';
import { completionMachine } from '../../machines/completion.js';
import { readinessMachine } from '../../machines/readiness.js';
import { terminalMachine } from '../../machines/terminal.js';
import { turnPhaseMachine } from '../../machines/turnPhase.js';
import { watchdogMachine } from '../../machines/watchdog.js';
import { witnessMachine } from '../../machines/witness.js';
import { failingPaths, type MachineOverrides, type ModelSpec } from './internal/harness.js';
import { specs as completion } from './internal/suts/completion.js';
import { specs as lastTurn } from './internal/suts/lastTurn.js';
import { specs as readiness } from './internal/suts/readiness.js';
import { specs as terminal } from './internal/suts/terminal.js';
import { specs as turnPhase } from './internal/suts/turnPhase.js';
import { specs as watchdog } from './internal/suts/watchdog.js';
import { specs as witness } from './internal/suts/witness.js';

/** The same machine with one transition's target changed (its rules kept). */
function retarget<M extends AnyStateMachine>(
  machine: M,
  state: string,
  event: string,
  to: string,
): M {
  const config = machine.config as { states: Record<string, { on?: Record<string, unknown> }> };
  const node = config.states[state]!;
  return createMachine(
    {
      ...config,
      states: {
        ...config.states,
        [state]: { ...node, on: { ...node.on, [event]: { target: to } } },
      },
    } as never,
    machine.implementations as never,
  ) as unknown as M;
}

/**
 * Machines mutated by hand, each in a way the spec forbids: the generated path tests, whose
 * expected answers come from the diagrams, must fail for every one of them.
 */
const MUTANTS: Array<{ name: string; specs: ModelSpec[]; machines: MachineOverrides }> = [
  {
    name: 'a wrong target: candidate_complete --evt_state_signature_changed--> in_progress',
    specs: completion,
    machines: {
      completion: retarget(
        completionMachine,
        'candidate_complete',
        'evt_state_signature_changed',
        'in_progress',
      ),
    },
  },
  {
    name: 'an inverted guard: readiness submit_ready',
    specs: readiness,
    machines: {
      readiness: readinessMachine.provide({
        guards: {
          submit_ready: ({ event }) =>
            !(
              event.type === 'observation' &&
              event.observation.availability === 'supported' &&
              event.observation.businessState === 'idle' &&
              event.observation.inputMode === 'freeform'
            ),
        },
      }),
    },
  },
  {
    name: 'an inverted guard: stalled_is_terminal',
    specs: readiness,
    machines: {
      readiness: readinessMachine.provide({
        guards: { stalled_is_terminal: ({ context }) => !context.stalledIsTerminal },
      }),
    },
  },
  {
    name: 'the stall deadline moved by every unknown observation in continuous mode',
    specs: readiness,
    machines: {
      readiness: readinessMachine.provide({
        guards: {
          stall_gap_restarts: ({ event }) =>
            event.type === 'observation' && event.observation.businessState === 'unknown',
        },
      }),
    },
  },
  {
    name: 'a completion without evidence of its own (submit-ready is enough)',
    specs: completion,
    machines: {
      completion: completionMachine.provide({
        guards: {
          submit_ready_with_activity: ({ event }) =>
            event.type === 'observation' &&
            event.observation.availability === 'supported' &&
            event.observation.businessState === 'idle' &&
            event.observation.inputMode === 'freeform',
        },
      }),
    },
  },
  {
    name: 'a halved stability window',
    specs: completion,
    machines: {
      completion: completionMachine.provide({
        actions: {
          start_stability_window: enqueueActions(({ context, enqueue }) => {
            enqueue.assign({ windowSignature: context.observedSignature });
            enqueue.emit({ type: 'stability_window.start', seconds: context.stabilitySeconds / 2 });
          }),
        },
      }),
    },
  },
  {
    name: 'dropping "a turn needs its own evidence"',
    specs: lastTurn,
    machines: {
      turnPhase: turnPhaseMachine.provide({ guards: { turn_without_evidence: () => false } }),
    },
  },
  {
    name: 'a halved settle window',
    specs: [...turnPhase, ...lastTurn],
    machines: {
      turnPhase: turnPhaseMachine.provide({
        actions: {
          start_settle_window: enqueueActions(({ context, enqueue }) => {
            enqueue.assign({ settling: 'mutant' });
            enqueue.emit({ type: 'settle_window.start', seconds: context.settleSeconds / 2 });
          }),
        },
      }),
    },
  },
  {
    name: 'a watchdog armed by a budget of 0',
    specs: watchdog,
    machines: {
      watchdog: watchdogMachine.provide({
        guards: { budget_enabled: ({ context }) => context.budgetSeconds >= 0 },
      }),
    },
  },
  {
    name: 'a watchdog deadline that ignores the window start',
    specs: watchdog,
    machines: {
      watchdog: watchdogMachine.provide({
        actions: {
          start_deadline: emit(({ context }) => ({
            type: 'deadline.start' as const,
            due: context.budgetSeconds,
          })),
        },
      }),
    },
  },
  {
    name: 'a terminal whose backoff does not grow',
    specs: terminal,
    machines: {
      terminal: terminalMachine.provide({
        delays: { restart_backoff: ({ context }) => context.backoff.initialSeconds * 1000 },
      }),
    },
  },
  {
    name: 'a screen success not held while the record turn is open',
    specs: witness,
    machines: {
      witness: witnessMachine.provide({ guards: { marker_cannot_tell_success: () => true } }),
    },
  },
  {
    name: 'the record waited for under `markers` as under `both`',
    specs: witness,
    machines: {
      witness: witnessMachine.provide({ guards: { marker_decides_under_markers: () => false } }),
    },
  },
  {
    name: 'a held success the record ended otherwise kept for the window',
    specs: witness,
    machines: {
      witness: witnessMachine.provide({ guards: { marker_disproves_held_success: () => false } }),
    },
  },
  {
    name: 'a halved disagreement window',
    specs: witness,
    machines: {
      witness: witnessMachine.provide({
        actions: {
          start_window: emit(({ context, event }) => ({
            type: 'window.start' as const,
            due: (event as { t: number }).t + context.config!.windowSeconds / 2,
          })),
        },
      }),
    },
  },
];

describe('the generated path tests notice a wrong machine', () => {
  it.each(MUTANTS.map((m) => [m.name, m] as const))('%s', async (_name, mutant) => {
    let failed = 0;
    let total = 0;
    for (const spec of mutant.specs) {
      const r = await failingPaths(spec, mutant.machines);
      failed += r.failed;
      total += r.total;
    }
    expect(total).toBeGreaterThan(0);
    expect(failed, `paths failing out of ${total}`).toBeGreaterThan(0);
  });

  it('and every path passes with the real machines', async () => {
    for (const spec of [
      ...completion,
      ...readiness,
      ...lastTurn,
      ...turnPhase,
      ...watchdog,
      ...terminal,
      ...witness,
    ]) {
      expect(await failingPaths(spec, {}), spec.name).toMatchObject({ failed: 0 });
    }
  });
});
