import { expect } from 'vitest';
import type { MachineOverrides, ModelSpec, Sut } from '../harness.js';

/** The generated path tests of this chart (run by test/model/*.model.test.ts). */
export const specs: ModelSpec[] = [];
import { seedModel } from '../seed-model.js';
import { FAILURE, SETTLE_SECONDS, TurnHarness } from '../turn-sut.js';
import { lastTurnSeed } from '../../seed-diagrams.js';

const rotation: Record<string, number> = {};
function next<T>(name: string, options: readonly T[]): T {
  rotation[name] = (rotation[name] ?? 0) + 1;
  return options[rotation[name]! % options.length]!;
}

/**
 * Last-turn paths on the real turn charts and their driver: each outcome is a whole turn of raw
 * frames. Right after a turn starts, the screen still shows the previous turn (its reply, its
 * marker): that must not count, as the turn has no evidence of its own yet. Turns are started
 * by a submit or inferred from activity; every turn has its own id and keeps its outcome.
 */
function lastTurnSut(_input: unknown, machines?: MachineOverrides): Sut {
  const h = new TurnHarness(machines);
  const start = (): string | null => {
    if (next('start', [true, false])) return h.armExplicit();
    h.activeFrame();
    return h.snapshot().current?.id ?? null;
  };
  /** The previous turn's leftovers, seen just after the new turn started: never an outcome. */
  const stale = () => {
    if (h.snapshot().current?.source !== 'explicit_input') return;
    const early = h.capture('lastTurn', () => {
      h.frame({ successCandidate: true });
      h.frame({ knownFailure: FAILURE });
      h.frame({ interrupted: true });
    });
    expect(early, 'an outcome from the screen the turn started on').toEqual([]);
  };
  return {
    state: () => h.snapshot().lastTurn.result,
    dispose: () => h.dispose(),
    step(event) {
      let id: string | null = null;
      let edges;
      switch (event.type) {
        case 'evt_success_settled': {
          id = start();
          stale();
          h.newText();
          const early = h.capture('lastTurn', () => {
            h.frame({ successCandidate: true });
            h.wait(SETTLE_SECONDS - 0.001);
          });
          expect(early, 'no success before the settle window ends').toEqual([]);
          const since = h.t - (SETTLE_SECONDS - 0.001);
          edges = h.capture('lastTurn', () => h.wait(0.001));
          expect(h.snapshot().lastTurn.at).toBeCloseTo(since + SETTLE_SECONDS, 9);
          break;
        }
        case 'evt_interrupted':
        case 'evt_known_failure':
          id = start();
          stale();
          h.newText();
          edges = h.capture('lastTurn', () =>
            h.frame(
              event.type === 'evt_interrupted' ? { interrupted: true } : { knownFailure: FAILURE },
            ),
          );
          break;
        case 'evt_success_retracted': {
          // Just after settling, with nothing else on screen, the reply is rewritten: the same
          // turn goes on.
          const settled = h.snapshot().lastTurn.turnId;
          h.newText();
          edges = h.capture('lastTurn', () => h.frame({}));
          expect(h.snapshot().current?.id).toBe(settled);
          expect(h.snapshot().lastTurn).toMatchObject({ source: 'none', turnId: null });
          break;
        }
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
      if (id !== null) {
        const last = h.snapshot().lastTurn;
        expect(last.turnId).toBe(id);
        const ended = h.turns
          .filter((t) => t.kind === 'turn.started')
          .map((t) => t.kind === 'turn.started' && t.turn.id);
        expect(new Set(ended).size, 'every turn has its own id').toBe(ended.length);
      }
      return edges;
    },
  };
}

specs.push({
  name: 'lastTurn',
  model: seedModel(lastTurnSeed),
  selfTransitions: true,
  inputs: [undefined],
  createSut: lastTurnSut,
});
