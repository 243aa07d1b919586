/**
 * A side record (Cline's log, docs/witness.md) read beside the record: its lines and the
 * record's come in any order, so a start or an ending may be read after what followed it.
 */
import { describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../src/profiles/session-record.js';
import { make, WINDOW } from './internal/witness-harness.js';

const LOG = '/log';
type Piece = RecordEvent extends infer E
  ? E extends RecordEvent
    ? Omit<E, 'position'>
    : never
  : never;
const side = (e: Piece, offset: number): RecordEvent =>
  ({ ...e, position: { file: LOG, offset } }) as RecordEvent;
const runStarted = (atSeconds: number, offset = 1): RecordEvent =>
  side({ type: 'turn_started', event: 'agent.run-started', atMs: atSeconds * 1000 }, offset);
const aborted = (atSeconds: number, offset = 7): RecordEvent =>
  side(
    {
      type: 'turn_ended',
      ending: { reason: 'interrupted' },
      event: 'agent.run-finished',
      atMs: atSeconds * 1000,
    },
    offset,
  );
/**
 * A turn armed with the record followed but no prompt line in it yet (Cline writes the prompt
 * into its messages only as the run ends).
 */
function armedWithoutPrompt() {
  const h = make('both');
  h.frame();
  h.wait(0.25);
  h.driver.armExplicit(h.t, 'turn-1');
  h.driver.recordAvailable(h.t, true);
  return { h, armedAt: h.t };
}
const working = () => ({ activeReasons: ['spinner'], readyPosture: 'no' as const });

describe('completion witness: a side record read out of order', () => {
  it('an ending read late from a side record but written before this turn started is not its', () => {
    // Cline's log is read from its start once the messages record is found: an interrupted run
    // of an earlier turn comes after this turn's start was read.
    const h = make('both');
    h.arm();
    const startedAt = h.t;
    h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    h.driver.recordEvent(h.t, {
      type: 'turn_ended',
      ending: { reason: 'interrupted' },
      event: 'agent.run-finished',
      position: { file: '/log', offset: 7 },
      atMs: (startedAt - 5) * 1000,
    });
    for (let i = 0; i < 4 * WINDOW; i += 1)
      h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
    expect(h.ends()).toEqual([]);
    h.reply();
    h.frame({ successCandidate: true });
    h.ended({ reason: 'success' });
    h.wait(0.3);
    h.frame({ successCandidate: true });
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success' })]);
  });

  it('a side record’s ending read before the start it follows ends that turn (Cline)', () => {
    // Cline writes the prompt into its messages only as the run ends; its log says `aborted`
    // at once, so the log's line may be read first.
    const { h, armedAt } = armedWithoutPrompt();
    h.frame(working());
    h.wait(2);
    h.driver.recordEvent(h.t, aborted(h.t));
    h.driver.recordEvent(h.t, {
      type: 'turn_started',
      event: 'user_input',
      position: { file: '/r', offset: 2 },
      atMs: armedAt * 1000,
    });
    for (let i = 0; i < 4 * WINDOW; i += 1) h.frame({ successCandidate: true });
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'record' }),
    ]);
    const ended = h.turns.find((x) => x.kind === 'turn.ended');
    expect(ended).toMatchObject({
      record: { file: '/log', offset: 7, event: 'agent.run-finished' },
    });
  });

  it('a start read late, older than the open turn’s, starts nothing', () => {
    // Cline's log read from its start: an earlier run's start comes after this run's.
    const { h, armedAt } = armedWithoutPrompt();
    h.driver.recordEvent(h.t, runStarted(armedAt + 0.05, 100));
    h.frame(working());
    h.driver.recordEvent(h.t, runStarted(armedAt - 60, 1));
    h.reply();
    h.frame({});
    h.driver.recordEvent(h.t, aborted(h.t, 200));
    for (let i = 0; i < 4 * WINDOW; i += 1) h.frame({});
    // Had the old start replaced the open turn, the ending would be an old turn's, and lost.
    expect(h.ends()).toEqual([
      expect.objectContaining({ outcome: 'interrupted', witness: 'record' }),
    ]);
  });

  it('a start read after the ending that followed it leaves the ending standing', () => {
    // The record's prompt and reply first, then the log's start of that same run.
    const { h, armedAt } = armedWithoutPrompt();
    h.frame(working());
    h.reply();
    h.record({ type: 'turn_started', event: 'user_input', position: { file: '/r', offset: 0 } });
    h.ended({ reason: 'success' });
    h.driver.recordEvent(h.t, runStarted(armedAt + 0.05));
    h.frame({});
    expect(h.ends()).toEqual([expect.objectContaining({ outcome: 'success', witness: 'both' })]);
  });
});
