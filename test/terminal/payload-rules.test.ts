/**
 * The rules of a turn's payload one by one (docs/contracts.md §6): where the reply text comes
 * from, how the record's parts of one message join, which turn a late reply belongs to, how a
 * screen reply loses the CLI's layout, and the byte bound. The recordings' payloads are in
 * turn-payload.test.ts; these take each rule on both sides of its line.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, type TurnPayload } from '../../src/schemas/turn-payload.js';
import { capBytes, TurnPayloads } from '../../src/terminal/payload.js';

const turn = (id: string, startedAt: number) => ({
  id,
  source: 'explicit_input' as const,
  startedAt,
});
const ended = (turnId: string, t: number) => ({
  kind: 'turn.ended' as const,
  t,
  turnId,
  source: 'explicit_input' as const,
  outcome: 'success' as const,
});

function built(chrome: RegExp[] = []) {
  const got: TurnPayload[] = [];
  const p = new TurnPayloads('t1', (x) => got.push(x), chrome);
  return { p, got, last: () => got.at(-1)! };
}

describe('capBytes', () => {
  it('keeps a text of exactly the bound, and cuts one byte more', () => {
    expect(capBytes('abcd', 4)).toEqual({ text: 'abcd', cut: false });
    expect(capBytes('abcde', 4)).toEqual({ text: 'abcd', cut: true });
  });

  it('leaves out a character the cut would split, counting bytes, not code units', () => {
    // é is two bytes: a bound of 3 falls inside the second one.
    expect(capBytes('éé', 3)).toEqual({ text: 'é', cut: true });
    expect(capBytes('éé', 4)).toEqual({ text: 'éé', cut: false });
    expect(capBytes('ééé', 4)).toEqual({ text: 'éé', cut: true });
  });
});

describe('the record’s reply', () => {
  it('joins the parts of one message, and a part of another message starts anew', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.reply({ text: 'one', messageId: 'm1', part: true });
    b.p.reply({ text: 'two', messageId: 'm1', part: true });
    b.p.turn(ended('turn-1', 2), '');
    expect(b.last().reply).toEqual({ text: 'one\n\ntwo', source: 'record', truncated: false });

    b.p.turn({ kind: 'turn.started', t: 3, turn: turn('turn-2', 3) }, '');
    b.p.reply({ text: 'one', messageId: 'm1', part: true });
    b.p.reply({ text: 'other', messageId: 'm2', part: true });
    b.p.turn(ended('turn-2', 4), '');
    expect(b.last().reply!.text).toBe('other');
  });

  it('a whole message, or parts with no message id, replace what came before', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.reply({ text: 'one', messageId: 'm1', part: true });
    b.p.reply({ text: 'whole', messageId: 'm1' });
    b.p.turn(ended('turn-1', 2), '');
    expect(b.last().reply!.text).toBe('whole');

    b.p.turn({ kind: 'turn.started', t: 3, turn: turn('turn-2', 3) }, '');
    b.p.reply({ text: 'a', part: true });
    b.p.reply({ text: 'b', part: true });
    b.p.turn(ended('turn-2', 4), '');
    expect(b.last().reply!.text).toBe('b');
  });

  it('a reply read after the turn ended with the record’s text changes nothing', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.reply({ text: 'the answer' });
    b.p.turn(ended('turn-1', 2), '');
    const count = b.got.length;
    b.p.reply({ text: 'a later line' });
    expect(b.got).toHaveLength(count);
  });

  it('read after the screen ended the turn, it becomes that turn’s reply, told once', () => {
    const b = built();
    b.p.idleProjection('P');
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, 'P');
    b.p.turn(ended('turn-1', 2), 'P\nfrom the screen');
    expect(b.last().reply).toMatchObject({ text: 'from the screen', source: 'screen' });
    const count = b.got.length;
    b.p.reply({ text: 'from the record' });
    expect(b.got).toHaveLength(count + 1);
    expect(b.last()).toMatchObject({
      turnId: 'turn-1',
      ended: true,
      result: 'success',
      reply: { text: 'from the record', source: 'record', truncated: false },
    });
    b.p.reply({ text: 'again' });
    expect(b.got).toHaveLength(count + 1);
  });

  it('the record’s prompt line drops the replies read before it, and ends the late ones', () => {
    const b = built();
    b.p.idleProjection('P');
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, 'P');
    b.p.reply({ text: 'the turn before' });
    b.p.recordTurnStarted();
    b.p.turn(ended('turn-1', 2), 'P\nfrom the screen');
    expect(b.last().reply).toMatchObject({ text: 'from the screen', source: 'screen' });
    // The next prompt's line read before its turn is seen: a reply after it is not turn-1's.
    b.p.recordTurnStarted();
    const count = b.got.length;
    b.p.reply({ text: 'the next turn' });
    expect(b.got).toHaveLength(count);
  });

  it('a reply read while a turn is open goes to that turn, not to the one ended before', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.turn(ended('turn-1', 2), '');
    const count = b.got.length;
    b.p.turn({ kind: 'turn.started', t: 3, turn: turn('turn-2', 3) }, '');
    b.p.reply({ text: 'for turn 2' });
    expect(b.got).toHaveLength(count + 1);
    b.p.turn(ended('turn-2', 4), '');
    expect(b.last()).toMatchObject({ turnId: 'turn-2', reply: { text: 'for turn 2' } });
  });

  it('a turn reopened keeps the reply read so far; a new turn does not', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.reply({ text: 'kept' });
    b.p.turn(ended('turn-1', 2), '');
    b.p.turn({ kind: 'turn.reopened', t: 2.5, turn: turn('turn-1', 1) }, '');
    expect(b.last()).toMatchObject({ turnId: 'turn-1', ended: false, reply: null });
    b.p.turn(ended('turn-1', 3), '');
    expect(b.last().reply).toEqual({ text: 'kept', source: 'record', truncated: false });
    // Another turn reopened (not the last ended) starts without it.
    b.p.turn({ kind: 'turn.reopened', t: 4, turn: turn('turn-9', 4) }, '');
    b.p.turn(ended('turn-9', 5), 'P');
    expect(b.last().reply?.source).not.toBe('record');
  });
});

describe('the screen’s reply', () => {
  it('drops the chrome, blank lines at either end, and the margin every line shares', () => {
    const b = built([/^─+$/]);
    b.p.idleProjection('before');
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, 'before');
    b.p.turn(ended('turn-1', 2), 'before\n  \n   first\n     indented\n \n   last\n──────\n  \n');
    expect(b.last().reply).toEqual({
      text: 'first\n  indented\n\nlast',
      source: 'screen',
      truncated: false,
    });
  });

  it('nothing after the transcript before: no reply, and no source', () => {
    const b = built();
    b.p.idleProjection('same');
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, 'same');
    b.p.turn(ended('turn-1', 2), 'same');
    expect(b.last().reply).toEqual({ text: '', source: null, truncated: false });
  });
});

describe('a turn’s payload', () => {
  it('names no witness, record or hook it was not told, and times the turn', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    expect(b.last()).toMatchObject({
      evidence: { witness: null, record: null, hook: null },
      timing: { startedAt: 1, endedAt: null, durationMs: null },
    });
    b.p.turn({ ...ended('turn-1', 2.25), hook: { event: 'Stop' }, witness: 'hook' as const }, '');
    expect(b.last()).toMatchObject({
      evidence: { witness: 'hook', record: null, hook: { event: 'Stop' } },
      timing: { startedAt: 1, endedAt: 2.25, durationMs: 1250 },
    });
  });

  it('a turn that ended without being seen start takes its prompt and its end as its start', () => {
    const b = built();
    b.p.submitted('turn-1', 'hi');
    b.p.idleProjection('P');
    b.p.turn(ended('turn-1', 5), 'P\n❯ hi\nhello');
    expect(b.last()).toMatchObject({
      turnId: 'turn-1',
      timing: { startedAt: 5, endedAt: 5, durationMs: 0 },
      reply: { text: 'hello', source: 'screen' },
    });
  });

  it('bounds a reply at 64 KiB whatever its parts', () => {
    const b = built();
    b.p.turn({ kind: 'turn.started', t: 1, turn: turn('turn-1', 1) }, '');
    b.p.reply({ text: 'x'.repeat(MAX_REPLY_BYTES), messageId: 'm', part: true });
    b.p.reply({ text: 'y', messageId: 'm', part: true });
    b.p.turn(ended('turn-1', 2), '');
    expect(b.last().reply).toMatchObject({ truncated: true });
    expect(b.last().reply!.text).toBe('x'.repeat(MAX_REPLY_BYTES));
  });
});
