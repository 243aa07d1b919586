import { expect } from 'vitest';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import { seedModel } from '../seed-model.js';
import { FAILURE, SETTLE_SECONDS, STALE_SECONDS, TurnHarness } from '../turn-sut.js';
import { turnFinishedWays, turnPhaseSeed, type TurnFinishedWay } from '../../seed-diagrams.js';

const rotation: Record<string, number> = {};
function next<T>(name: string, options: readonly T[]): T {
  rotation[name] = (rotation[name] ?? 0) + 1;
  return options[rotation[name]! % options.length]!;
}

/**
 * Turn-phase paths on the real turn charts and their driver, fed raw frames on virtual time.
 * Each event is produced in turn by every way the priority chain of statecharts.md §5 can
 * produce it: a turn starts by a submit or by activity on screen; it finishes (each run of the
 * paths by one of the diagram's `turnFinishedWays`) by a settled success (exactly one settle window after the candidate, not before), an interruption, a
 * failure or a withdrawal, or by the host's active recovery (the seed's "host active recovery":
 * an idle prompt, unchanged, for exactly the stale-active window, with no outcome); posture is lost by degraded diagnostics or an ambiguous surface.
 */
function turnPhaseSut(input: unknown, machines?: MachineOverrides): Sut {
  const finish = (input as { finish: TurnFinishedWay }).finish;
  const h = new TurnHarness(machines);
  return {
    state: () => h.snapshot().phase,
    dispose: () => h.dispose(),
    step(event, from) {
      const open = h.snapshot().current !== null;
      switch (event.type) {
        case 'evt_ready_posture':
          return h.capture('turnPhase', () => {
            if (open) {
              // A turn left open when posture was lost: the screen now shows it interrupted.
              h.newText();
              return h.frame({ interrupted: true });
            }
            const how = next('ready', ['idle', 'stale_marker', 'old_marker']);
            if (how === 'idle') return h.frame({});
            // An old marker with a draft typed over it, or an old marker alone: no turn, ready.
            if (how === 'stale_marker') return h.frame({ editingInput: 'yes', interrupted: true });
            return h.frame({ knownFailure: FAILURE });
          });
        case 'evt_turn_started':
          return h.capture('turnPhase', () => {
            if (from === 'ready' && next('start', [true, false])) return void h.armExplicit();
            return h.activeFrame();
          });
        case 'evt_turn_finished': {
          const how = finish;
          if (how === 'host_active_recovery') {
            h.newText();
            const last = h.snapshot().lastTurn;
            const early = h.capture('turnPhase', () => {
              h.frame({});
              h.wait(STALE_SECONDS - 0.001);
            });
            expect(early, 'no phase change before the stale-active window ends').toEqual([]);
            const steps = h.capture('turnPhase', () => h.wait(0.001));
            expect(h.snapshot().lastTurn, 'host active recovery reports no outcome').toEqual(last);
            return steps;
          }
          if (how === 'success_settled') {
            h.newText();
            const early = h.capture('turnPhase', () => {
              h.frame({ successCandidate: true });
              h.wait(SETTLE_SECONDS - 0.001);
            });
            expect(early, 'no phase change before the settle window ends').toEqual([]);
            return h.capture('turnPhase', () => h.wait(0.001));
          }
          return h.capture('turnPhase', () => {
            if (how === 'withdrawn') {
              // Active, then the prompt handed back as a draft with the transcript as it was.
              const before = h.text;
              h.activeFrame();
              h.text = before;
              return h.frame({ editingInput: 'yes' });
            }
            h.newText();
            return h.frame(
              how === 'interrupted' ? { interrupted: true } : { knownFailure: FAILURE },
            );
          });
        }
        case 'evt_posture_lost':
          return h.capture('turnPhase', () => {
            if (from === 'ready' && next('lost', [true, false]))
              return h.frame({ ambiguous: true });
            return h.frame({}, false);
          });
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
    },
  };
}

specs.push({
  name: 'turnPhase',
  model: seedModel(turnPhaseSeed),
  // One run of every path per way the diagram finishes a turn.
  inputs: turnFinishedWays.map((finish) => ({ finish })),
  createSut: turnPhaseSut,
});
