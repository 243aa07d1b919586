/**
 * Turn payloads read from real recordings: the reply from the CLI's session record where the
 * recording holds it, else from the screen's projection; never in the journal or the state. And
 * the bounds: a reply is cut at 64 KiB, a terminal keeps its latest 20 turns.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_REPLY_BYTES,
  MAX_TURN_PAYLOADS,
  type TurnPayload,
} from '../../src/schemas/turn-payload.js';
import { TurnPayloadStore } from '../../src/supervisor/payloads.js';
import { capBytes, TurnPayloads } from '../../src/terminal/payload.js';
import { replyFromScreen } from '../../src/terminal/screen-reply.js';
import { parseRecording, pipelineFor, playRecording } from '../../src/replay/replay.js';
import { clineSessionRecord } from '../../src/profiles/cline/session-record.js';
import { aroundReply, PieceReader } from '../../src/sessions/pieces.js';

const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';

/** Replays a fixture; its payloads as handed on, every state printed and the journal's records. */
async function replay(tool: string, scenario: string) {
  const text = readFileSync(`test/fixtures/${tool}/${scenario}.jsonl`, 'utf8');
  const lines = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i): [number, string] => [i + 1, l]);
  const rec = parseRecording(lines);
  const payloads: TurnPayload[] = [];
  const { pipeline, clock } = pipelineFor(rec, { onPayload: (p) => payloads.push(p) });
  const states: string[] = [];
  const sub = pipeline.state$.subscribe((s) => states.push(JSON.stringify(s)));
  playRecording(rec, pipeline, clock);
  sub.unsubscribe();
  await pipeline.journal.flush();
  const records = pipeline.journal.read(0).map((r) => JSON.stringify(r));
  pipeline.dispose();
  const ended = payloads.filter((p) => p.ended);
  return { payloads, ended, states, records };
}

describe('turn payloads from recordings', () => {
  it.each([
    ['claude_code', 'assistant.end_turn'],
    ['codex', 'task_complete'],
    ['copilot', 'assistant.message'],
    ['qwen_code', 'assistant'],
  ])(
    '%s: the reply is the session record’s text, with the record’s evidence',
    async (tool, event) => {
      const { payloads, ended, states, records } = await replay(tool, 'record-normal-turn');
      // Running first (no reply yet), then ended.
      expect(payloads[0]).toMatchObject({
        turnId: 'turn-1',
        ended: false,
        result: null,
        reply: null,
      });
      expect(ended).toHaveLength(1);
      const p = ended[0]!;
      expect(p).toMatchObject({
        turnId: 'turn-1',
        source: 'explicit_input',
        result: 'success',
        reply: { text: REPLY, source: 'record', truncated: false },
        evidence: { witness: 'both', record: { event } },
      });
      expect(p.timing.endedAt! - p.timing.startedAt).toBeGreaterThan(0);
      expect(p.timing.durationMs).toBe(Math.round((p.timing.endedAt! - p.timing.startedAt) * 1000));
      // The text lives in the payload alone: no state and no journal record carries it.
      const needle = 'It has a few sentences';
      expect(records.length).toBeGreaterThan(5);
      expect(records.some((r) => r.includes(needle))).toBe(false);
      expect(states.some((s) => s.includes(needle))).toBe(false);
    },
  );

  it('gemini_cli: its record never ends a turn, yet its reply text is the record’s', async () => {
    const { ended } = await replay('gemini_cli', 'record-normal-turn');
    expect(ended[0]).toMatchObject({
      result: 'success',
      reply: {
        text: 'Hello! This reply comes from the fake model, streamed a few words at a time.',
        source: 'record',
      },
      evidence: { witness: 'surface', record: null },
    });
  });

  it('an interrupted Claude Code turn: the partial reply the record kept', async () => {
    const { ended } = await replay('claude_code', 'record-interrupted');
    // The screen ended it first; the record's partial reply, read after, replaces the screen's.
    expect(ended[0]).toMatchObject({ result: 'interrupted', reply: { source: 'screen' } });
    expect(ended.at(-1)).toMatchObject({ result: 'interrupted', reply: { source: 'record' } });
    expect(ended.at(-1)!.reply!.text).toMatch(/^Sentence 1 of a long answer/);
  });

  it('without a session record: the screen between the prompt echo and the ready prompt', async () => {
    const { ended, records } = await replay('claude_code', 'normal-turn');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      result: 'success',
      reply: { text: `● ${REPLY}`, source: 'screen', truncated: false },
      evidence: { witness: null, record: null },
    });
    // The prompt echo and the CLI's chrome (box, footer, done summary) are not in it.
    expect(ended[0]!.reply!.text).not.toMatch(/say hello|manual mode|Crunched|─/);
    expect(records.some((r) => r.includes('It has a few sentences'))).toBe(false);
  });

  it.each(['opencode', 'kilo'])(
    '%s without a record: the reply alone, its footer, the prompt’s bar and the margin left out',
    async (tool) => {
      const { ended } = await replay(tool, 'normal-turn');
      // The reply flows over the pane's width: its words, one space apart, are the model's.
      expect(ended[0]!.reply!.text.replace(/\s+/g, ' ')).toBe(REPLY);
      expect(ended[0]!.reply!.text).not.toMatch(/^\s|▣|┃/m);
    },
  );

  it('a reply taller than the pane: the end shown, marked truncated', async () => {
    const { ended } = await replay('claude_code', 'long-reply-scrolls');
    const reply = ended[0]!.reply!;
    expect(reply).toMatchObject({ source: 'screen', truncated: true });
    expect(reply.text).toMatch(/Line 90 of a tall answer/);
    expect(reply.text).not.toMatch(/Line 1 of a tall answer/);
  });

  it('two turns of Cline (a document record): each its own reply from the record', async () => {
    const { ended, records } = await replay('cline', 'record-two-turns');
    expect(ended.map((p) => [p.turnId, p.reply?.source, p.reply?.text])).toEqual([
      ['turn-1', 'record', REPLY],
      ['turn-2', 'record', 'Second answer: shorter, but still streamed in several chunks.'],
    ]);
    expect(records.some((r) => r.includes('It has a few sentences'))).toBe(false);
  });

  it('Cline: a document read once with the prompt and its reply gives the reply to that turn', () => {
    const doc = (messages: unknown[]) => JSON.stringify({ version: 1, messages });
    const user = (text: string, ts: number) => ({
      role: 'user',
      ts,
      content: [{ type: 'text', text: `<user_input mode="act">${text}</user_input>` }],
    });
    const said = (text: string, ts: number, extra: object = {}) => ({
      role: 'assistant',
      ts,
      content: [{ type: 'text', text }],
      ...extra,
    });
    const pieces = new PieceReader(clineSessionRecord, true);
    const position = { file: 'x.messages.json', offset: 0 };
    const first = doc([user('q1', 1), said('a1', 2)]);
    const reading = pieces.read(first, position);
    const reply = pieces.reply(first);
    expect(reply).toMatchObject({ text: 'a1', offset: 1 });
    const [before, after] = aroundReply('events' in reading ? reading.events : [], reply);
    expect(before.map((e) => e.type)).toEqual(['turn_started']);
    expect(after.map((e) => e.type)).toEqual(['turn_ended']);
    // The same document written again: no second reply.
    expect(pieces.reply(first)).toBeNull();
    // A tool call, an error and a display note as the last message are no reply.
    const toolUse = {
      role: 'assistant',
      ts: 4,
      content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }],
    };
    expect(pieces.reply(doc([user('q2', 3), toolUse]))).toBeNull();
    expect(
      pieces.reply(doc([user('q2', 3), said('boom', 4, { metadata: { displayRole: 'error' } })])),
    ).toBeNull();
    expect(pieces.reply(doc([user('q2', 3)]))).toBeNull();
    expect(pieces.reply(doc([user('q2', 3), said('a2', 5)]))).toMatchObject({
      text: 'a2',
      offset: 1,
    });
  });
});

describe('the screen projection of a reply', () => {
  it('starts after the transcript before the turn and after the prompt echo', () => {
    const before = 'banner\n❯ old prompt\n● old reply';
    const end =
      'banner\n❯ old prompt\n● old reply\n❯ new prompt\n  ⠋ thinking\n● the reply\n  goes on';
    // Without the prompt: what is new since the turn began (its echo included).
    expect(replyFromScreen(before, end, null)).toEqual({
      text: '❯ new prompt\n  ⠋ thinking\n● the reply\n  goes on',
      whole: true,
    });
    expect(replyFromScreen(before, end, 'new prompt')).toEqual({
      text: '  ⠋ thinking\n● the reply\n  goes on',
      whole: true,
    });
  });

  it('a reply that quotes the prompt is kept whole; a multi-line prompt’s echo is skipped', () => {
    expect(replyFromScreen('', '❯ say hi\n● reply 1: say hi', 'say hi').text).toBe(
      '● reply 1: say hi',
    );
    const end = '> line one\n  line two\n  line three\n\n● Three lines received.';
    expect(replyFromScreen('', end, 'line one\nline two\nline three')).toEqual({
      text: '● Three lines received.',
      whole: true,
    });
  });

  it('neither the transcript before nor the prompt on screen: the end only, not whole', () => {
    expect(replyFromScreen('a\nb\nc', 'x\ny', 'the prompt')).toEqual({
      text: 'x\ny',
      whole: false,
    });
    expect(replyFromScreen('', 'x\ny', 'the prompt')).toEqual({ text: 'x\ny', whole: false });
  });
});

describe('bounds', () => {
  it('cuts a reply at 64 KiB of UTF-8, never inside a character', () => {
    const text = 'é'.repeat(MAX_REPLY_BYTES); // two bytes each
    const cut = capBytes(text);
    expect(cut.cut).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    expect(cut.text).toBe('é'.repeat(MAX_REPLY_BYTES / 2));
    expect(capBytes('short')).toEqual({ text: 'short', cut: false });
  });

  it('a terminal keeps its latest 20 turns, each reply at most 64 KiB, whatever it is fed', () => {
    const store = new TurnPayloadStore();
    const built = new TurnPayloads('t1', (p) => store.put(p));
    const huge = 'x'.repeat(1 << 20); // 1 MiB a message, over 300 turns
    for (let n = 1; n <= 300; n += 1) {
      const turn = { id: `turn-${n}`, source: 'explicit_input' as const, startedAt: n };
      built.turn({ kind: 'turn.started', t: n, turn }, '');
      // A message in parts (Claude Code writes a line per block): joined, and still bounded.
      for (let part = 0; part < 3; part += 1)
        built.reply({ text: huge, messageId: `m${n}`, part: true });
      built.turn(
        {
          kind: 'turn.ended',
          t: n + 0.5,
          turnId: turn.id,
          source: turn.source,
          outcome: 'success',
        },
        '',
      );
    }
    const kept = store.turnIds('t1');
    expect(kept).toHaveLength(MAX_TURN_PAYLOADS);
    expect(kept[0]).toBe('turn-281');
    expect(kept.at(-1)).toBe('turn-300');
    expect(store.get('t1', 'turn-280')).toBeUndefined();
    let bytes = 0;
    for (const id of kept) {
      const p = store.get('t1', id)!;
      expect(p.reply).toMatchObject({ source: 'record', truncated: true });
      bytes += Buffer.byteLength(p.reply!.text);
    }
    expect(bytes).toBe(MAX_TURN_PAYLOADS * MAX_REPLY_BYTES);
    store.forget('t1');
    expect(store.turnIds('t1')).toEqual([]);
  });

  it('a record reply read after the screen ended the turn replaces the screen’s', () => {
    const got: TurnPayload[] = [];
    const built = new TurnPayloads('t1', (p) => got.push(p));
    const turn = { id: 'turn-1', source: 'explicit_input' as const, startedAt: 1 };
    built.submitted('turn-1', 'hi');
    built.turn({ kind: 'turn.started', t: 1, turn }, '');
    built.turn(
      { kind: 'turn.ended', t: 2, turnId: 'turn-1', source: 'explicit_input', outcome: 'success' },
      '❯ hi\n● hello there',
    );
    expect(got.at(-1)!.reply).toEqual({
      text: '● hello there',
      source: 'screen',
      truncated: false,
    });
    built.reply({ text: 'hello there' });
    expect(got.at(-1)!.reply).toEqual({ text: 'hello there', source: 'record', truncated: false });
    // Once the next turn started, a reply is that turn's.
    built.turn({ kind: 'turn.started', t: 3, turn: { ...turn, id: 'turn-2', startedAt: 3 } }, '');
    built.reply({ text: 'second' });
    expect(got.filter((p) => p.turnId === 'turn-1').at(-1)!.reply!.text).toBe('hello there');
  });

  it('replies the record held before the turn’s own prompt line are not the turn’s', () => {
    const got: TurnPayload[] = [];
    const built = new TurnPayloads('t1', (p) => got.push(p));
    const turn = { id: 'turn-1', source: 'explicit_input' as const, startedAt: 1 };
    built.submitted('turn-1', 'stop it');
    built.turn({ kind: 'turn.started', t: 1, turn }, '');
    // A resumed session's record, read from its start once found: an old answer, then this
    // turn's prompt line; the turn is interrupted before any text of its own.
    built.reply({ text: 'an answer from the previous session' });
    built.recordTurnStarted();
    built.turn(
      {
        kind: 'turn.ended',
        t: 2,
        turnId: 'turn-1',
        source: 'explicit_input',
        outcome: 'interrupted',
      },
      '❯ stop it\n⎿ Interrupted',
    );
    expect(got.at(-1)!.reply).toEqual({
      text: '⎿ Interrupted',
      source: 'screen',
      truncated: false,
    });
  });
});
