import { expect } from 'vitest';
import { assign, setup } from 'xstate';
import type { CompletionAuthority } from '../../../../machines/witness.js';
import type { RecordEvent } from '../../../../src/profiles/session-record.js';
import type { ModelSpec, Sut } from '../harness.js';
import type { Edge } from '../transitions.js';
import { STALE_SECONDS, TurnHarness } from '../turn-sut.js';

/** The generated path tests of this chart (run by test/model/witness.model.test.ts). */
export const specs: ModelSpec[] = [];

interface Input {
  authority: CompletionAuthority;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** docs/witness.md's default window. */
const WINDOW_SECONDS = 3;

type Step =
  | { type: 'evt_record_ends_otherwise' }
  | { type: 'evt_record_ends_success' }
  | { type: 'evt_screen_settles' }
  | { type: 'evt_screen_settles_after_early_ending' }
  | { type: 'evt_window_elapses' }
  | { type: 'evt_screen_stands_idle' }
  | { type: 'evt_record_unavailable' }
  | { type: 'evt_turn_armed' }
  | { type: 'evt_record_ends_otherwise_then_reply_redrawn' };

/**
 * The test model of docs/witness.md's completion authority, written from its words and not from
 * machines/witness.ts. Under `markers` and `both` the witness is `watching` (nothing waits);
 * under `both` a record that ends the open turn a way the screen has not shown starts the
 * window (`disagreeing`), and when the window runs out the record wins, or sooner, when the
 * screen stands at its idle prompt for the stale-active window (the turn would otherwise end
 * with no outcome before the window ran out); under `markers` the
 * record decides at once. The screen's success while the record's turn is open waits for the
 * record, at most the window (`holding`): the record's success agrees, its other ending wins at
 * once, the window running out leaves the screen's word, and a record no longer followed lets
 * the screen's success go. A success the screen settles while the record already ended the
 * turn otherwise is held too, with the window already running (`holding`). A record turn that
 * ended before the prompt was armed is an earlier turn's, however soon after it the prompt
 * came: the screen's success stands alone. When the screen's success stood because the window
 * ran out with the record silent, and the record then ends that turn another way before the CLI
 * draws the reply again (the turn reopens and settles again), the record's ending is that
 * turn's: under `markers` it decides at once, under `both` the success is held for the window
 * (`holding`) and the record's ending wins when it runs out. A new prompt starts afresh.
 */
const model = setup({
  types: {
    input: {} as Input,
    // `against`: the success is held against a record that already ended the turn another way.
    context: {} as Input & { last: string; against: boolean },
    events: {} as Step,
  },
  guards: {
    under_markers: ({ context }) => context.authority === 'markers',
    held_against_record: ({ context }) => context.against,
  },
  actions: {
    note: assign({ last: ({ event }) => event.type, against: false }),
    note_against: assign({ last: ({ event }) => event.type, against: true }),
  },
}).createMachine({
  id: 'witness-model',
  initial: 'watching',
  context: ({ input }) => ({
    authority: input.authority,
    last: '',
    against: false,
  }),
  // The step that entered a state tells it apart, so a step that stays gets a path of its own.
  states: {
    watching: {
      on: {
        evt_record_ends_otherwise: [
          { guard: 'under_markers', target: 'watching', actions: 'note' },
          { target: 'disagreeing', actions: 'note' },
        ],
        evt_screen_settles: { target: 'holding', actions: 'note' },
        evt_screen_settles_after_early_ending: { target: 'watching', actions: 'note' },
        evt_turn_armed: { target: 'watching', actions: 'note' },
        evt_record_ends_otherwise_then_reply_redrawn: [
          { guard: 'under_markers', target: 'watching', actions: 'note' },
          { target: 'holding', actions: 'note_against' },
        ],
      },
    },
    disagreeing: {
      on: {
        evt_window_elapses: { target: 'watching', actions: 'note' },
        evt_screen_stands_idle: { target: 'watching', actions: 'note' },
        evt_screen_settles: { target: 'holding', actions: 'note' },
        evt_record_unavailable: { target: 'watching', actions: 'note' },
        evt_turn_armed: { target: 'watching', actions: 'note' },
      },
    },
    holding: {
      on: {
        evt_window_elapses: [
          { guard: 'held_against_record', target: 'watching', actions: 'note' },
          { target: 'watching', actions: 'note' },
        ],
        evt_record_ends_success: { target: 'watching', actions: 'note' },
        evt_record_ends_otherwise: { target: 'watching', actions: 'note' },
        evt_record_unavailable: { target: 'watching', actions: 'note' },
        evt_turn_armed: { target: 'watching', actions: 'note' },
      },
    },
  },
});

/** Under `surface` the record is never read: the screen alone decides, whatever it says. */
const surfaceModel = setup({
  types: { events: {} as Step, context: {} as { last: string } },
  actions: { note: assign({ last: ({ event }) => event.type }) },
}).createMachine({
  id: 'witness-surface-model',
  initial: 'screen_alone',
  context: { last: '' },
  states: {
    screen_alone: {
      on: {
        evt_record_ends_otherwise: { target: 'screen_alone', actions: 'note' },
        evt_screen_settles: { target: 'screen_alone', actions: 'note' },
        evt_turn_armed: { target: 'screen_alone', actions: 'note' },
      },
    },
  },
});

/**
 * Witness paths on the real turn driver and charts, on virtual time, fed raw frames and session
 * record lines: after each step the outcome reported and who decided it are checked against
 * docs/witness.md.
 */
function witnessSut(input: unknown, machines?: Parameters<ModelSpec['createSut']>[1]): Sut {
  const { authority } = input as Input;
  const h = new TurnHarness(machines, {
    witness: { authority, windowSeconds: WINDOW_SECONDS },
  });
  let offset = 0;
  let recordOpen = false;
  /** When the window should have started, by the document. */
  let windowFrom = 0;
  const record = (ev: DistributiveOmit<RecordEvent, 'position'>) => {
    offset += 100;
    h.driver.recordEvent(h.t, { ...ev, position: { file: '/r.jsonl', offset } } as RecordEvent);
  };
  const recordStarts = () => {
    record({ type: 'turn_started', event: 'user' });
    recordOpen = true;
  };
  const recordEnds = (reason: 'success' | 'interrupted') => {
    if (!recordOpen) recordStarts();
    record({ type: 'turn_ended', event: 'assistant', ending: { reason } });
    recordOpen = false;
  };
  /** A fresh turn, busy on screen, with its record turn open. */
  const freshTurn = () => {
    h.armExplicit();
    h.activeFrame();
    recordStarts();
  };
  const ended = () => h.turns.filter((e) => e.kind === 'turn.ended');
  const lastEnded = () => {
    const e = ended().at(-1);
    return e?.kind === 'turn.ended' ? { outcome: e.outcome, witness: e.witness } : null;
  };
  h.driver.recordAvailable(0, true);
  h.frame({});
  return {
    state: () => h.driver.witnessState,
    dispose: () => h.dispose(),
    step(event, from) {
      const before = h.driver.witnessState;
      const endings = ended().length;
      const expectEnded = (outcome: string, witness: string) => {
        expect(ended(), 'one turn ended').toHaveLength(endings + 1);
        expect(lastEnded()).toEqual({ outcome, witness });
      };
      switch (event.type) {
        case 'evt_record_ends_otherwise':
          if (from !== 'holding') freshTurn();
          recordEnds('interrupted');
          if (from === 'watching') windowFrom = h.t;
          if (authority === 'markers' || from === 'holding') expectEnded('interrupted', 'record');
          else expect(ended(), 'the screen has not ended it').toHaveLength(endings);
          break;
        case 'evt_record_ends_success':
          recordEnds('success');
          expectEnded('success', authority === 'markers' ? 'record' : 'both');
          break;
        case 'evt_screen_settles':
          if (from !== 'disagreeing') freshTurn();
          h.settleSuccess();
          if (from === 'watching') windowFrom = h.t;
          if (authority === 'surface') expectEnded('success', 'surface');
          else expect(ended(), 'the success is held').toHaveLength(endings);
          break;
        case 'evt_screen_settles_after_early_ending':
          // The record ends a turn with no turn open; the next prompt is armed at once (well
          // within the slack a record start has): that ending is not the new turn's.
          if (h.driver.current) h.frame({ interrupted: true });
          recordStarts();
          recordEnds('interrupted');
          h.armExplicit();
          h.activeFrame();
          h.settleSuccess();
          expectEnded('success', 'surface');
          break;
        case 'evt_window_elapses':
          h.wait(windowFrom + WINDOW_SECONDS - 0.01 - h.t);
          expect(ended(), 'the window has not run out yet').toHaveLength(endings);
          expect(h.driver.witnessState).toBe(from);
          h.wait(0.01);
          if (recordOpen) expectEnded('success', 'surface');
          else expectEnded('interrupted', 'record');
          expect(h.disagreements.length, 'a disagreement is reported').toBeGreaterThan(0);
          break;
        case 'evt_screen_stands_idle': {
          // The agent's reply stays on screen at the idle prompt; nothing changes after it.
          h.newText();
          h.frame({});
          const restingFrom = h.t;
          h.wait(STALE_SECONDS - 0.01);
          expect(ended(), 'the stale-active window has not run out yet').toHaveLength(endings);
          h.wait(0.01);
          expectEnded('interrupted', 'record');
          expect(restingFrom + STALE_SECONDS, 'before the window ran out').toBeLessThan(
            windowFrom + WINDOW_SECONDS,
          );
          expect(h.disagreements.length, 'a disagreement is reported').toBeGreaterThan(0);
          break;
        }
        case 'evt_record_unavailable':
          h.driver.recordAvailable(h.t, false);
          if (from.startsWith('holding')) expectEnded('success', 'surface');
          else expect(ended()).toHaveLength(endings);
          h.driver.recordAvailable(h.t, true);
          recordOpen = false;
          break;
        case 'evt_turn_armed':
          h.armExplicit();
          break;
        case 'evt_record_ends_otherwise_then_reply_redrawn': {
          // A fresh turn's success is held, and stands when the window runs out (the record
          // silent); the record then ends that turn another way, and the CLI draws the reply
          // again at once: the turn reopens and settles again.
          freshTurn();
          h.settleSuccess();
          h.wait(WINDOW_SECONDS);
          expectEnded('success', 'surface');
          const stood = ended().length;
          recordEnds('interrupted');
          expect(ended(), 'an ending read with no turn open ends nothing').toHaveLength(stood);
          const reopened = h.turns.filter((e) => e.kind === 'turn.reopened').length;
          h.settleSuccess();
          expect(h.turns.filter((e) => e.kind === 'turn.reopened')).toHaveLength(reopened + 1);
          if (authority === 'markers') {
            expect(ended()).toHaveLength(stood + 1);
            expect(lastEnded()).toEqual({ outcome: 'interrupted', witness: 'record' });
          } else {
            expect(ended(), 'the success is held').toHaveLength(stood);
            windowFrom = h.t;
          }
          break;
        }
        default:
          throw new Error(`no raw input for ${event.type}`);
      }
      const after = h.driver.witnessState;
      const edges: Edge[] = [];
      if (after !== before) edges.push({ from: before, event: event.type, to: after });
      return edges;
    },
  };
}

specs.push(
  {
    name: 'witness',
    model,
    inputs: [{ authority: 'both' }, { authority: 'markers' }],
    createSut: witnessSut,
  },
  {
    name: 'witness (surface)',
    model: surfaceModel,
    inputs: [{ authority: 'surface' }],
    createSut: witnessSut,
  },
);
