import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RecordingHeader, RecordingLine } from '../../src/schemas/recording.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import type { CompletionAuthority } from '../../src/terminal/witness.js';
import { encodeLine } from '../../src/journal/codec.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
  replayRecording,
} from '../../src/replay/replay.js';
import { fixturePath } from './ground-truth.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Lines = Array<[number, string]>;

function replay(lines: Lines, completionAuthority?: CompletionAuthority): TerminalState[] {
  const states: TerminalState[] = [];
  replayRecording(lines, (s) => states.push(s), completionAuthority ? { completionAuthority } : {});
  return states;
}

/**
 * When each result of the turn was first reported, and the witness it ended with (a record that
 * confirms the screen's outcome within the window makes it `both`).
 */
function outcomes(states: TerminalState[], turnId = 'turn-1') {
  const out: Array<{ result: string; witness: string | undefined; t: number }> = [];
  for (const s of states) {
    if (s.lastTurn.turnId !== turnId || s.lastTurn.result === 'none') continue;
    const last = out.at(-1);
    if (last?.result === s.lastTurn.result) last.witness = s.lastTurn.witness;
    else out.push({ result: s.lastTurn.result, witness: s.lastTurn.witness, t: s.t });
  }
  return out;
}

const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;
const withoutPieces = (lines: Lines): Lines =>
  lines
    .filter(([, text]) => parsed(text).type !== 'record_piece')
    .map(([n, text]) => {
      const line = parsed(text);
      if (line.type !== 'header') return [n, text];
      const { sessionRecord: _dropped, ...header } = line;
      return [n, JSON.stringify(header)];
    });

describe('recording lines for the session record', () => {
  it('a header naming the reader and a piece read back as they were written', () => {
    const header = {
      type: 'header',
      version: 1,
      tool: 'cline',
      sessionRecord: { reader: 'cline', kind: 'document' },
      startedAtEpochMs: 1795756059301,
    };
    const piece = {
      type: 'record_piece',
      t: 6.952,
      file: '1795756064012_rnmfr.messages.json',
      offset: 0,
      text: '{"version":1,"messages":[]}',
      reset: 'replaced',
    };
    for (const line of [header, piece]) {
      expect(JSON.parse(JSON.stringify(RecordingLine.parse(line)))).toEqual(line);
    }
    expect(RecordingHeader.parse(header).sessionRecord).toEqual({
      reader: 'cline',
      kind: 'document',
    });
  });

  it('a bad piece is refused naming its field', () => {
    const bad = RecordingLine.safeParse({ type: 'record_piece', t: 1, file: 'f', offset: -1 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['offset', 'text']);
    const kind = RecordingHeader.safeParse({
      type: 'header',
      version: 1,
      tool: 'x',
      sessionRecord: { reader: 'x', kind: 'sqlite' },
    });
    expect(kind.error?.issues[0]?.path).toEqual(['sessionRecord', 'kind']);
  });
});

describe('replay of recordings that hold the session record', () => {
  // The outcomes are the harness's labels (the fake model server's log: a completed stream, a
  // stream the client aborted, an HTTP error); the witness is who must have decided them.
  it.each([
    ['claude_code', 'record-normal-turn', 'success', 'both'],
    ['claude_code', 'record-interrupted', 'interrupted', 'both'],
    ['claude_code', 'record-error-500', 'known_failure', 'both'],
    ['claude_code', '2.1.332/record-normal-turn', 'success', 'both'],
    ['claude_code', '2.1.332/record-interrupted', 'interrupted', 'both'],
    ['claude_code', '2.1.332/record-error-500', 'known_failure', 'both'],
    ['cline', 'record-normal-turn', 'success', 'both'],
    ['cline', 'record-error-400', 'known_failure', 'both'],
  ])('%s %s ends as %s, witnessed by %s', (tool, scenario, result, witness) => {
    const states = replay(readJsonLines(fixturePath(tool, scenario)));
    expect(outcomes(states)).toEqual([{ result, witness, t: expect.any(Number) }]);
    const last = states.at(-1)!;
    expect(last.witness).toMatchObject({ authority: 'both', record: 'following' });
  });

  it('a finished Cline reply is a success only with the record; the screen alone tells none', () => {
    const lines = readJsonLines(fixturePath('cline', 'record-normal-turn'));
    expect(outcomes(replay(lines, 'surface'))).toEqual([]);
    expect(outcomes(replay(lines, 'markers'))).toMatchObject([{ result: 'success' }]);
  });

  it('an interrupted Cline turn is interrupted from its log, which the recording keeps beside', () => {
    const lines = readJsonLines(fixturePath('cline', 'record-interrupted'));
    const states = replay(lines);
    expect(outcomes(states)).toEqual([
      { result: 'interrupted', witness: 'record', t: expect.any(Number) },
    ]);
    expect(states.at(-1)!.witness?.record).toBe('following');
    // Without the log's lines the messages cannot tell it: no outcome.
    const messagesOnly = lines.filter(([, text]) => !text.includes('"side":{'));
    expect(messagesOnly.length).toBeLessThan(lines.length);
    expect(outcomes(replay(messagesOnly))).toEqual([]);
  });

  it.each(['record-normal-turn', '2.1.332/record-normal-turn'])(
    'the record ends a Claude Code success sooner than the screen alone (%s)',
    (scenario) => {
      const lines = readJsonLines(fixturePath('claude_code', scenario));
      const both = outcomes(replay(lines))[0]!;
      const surface = outcomes(replay(lines, 'surface'))[0]!;
      expect(surface).toMatchObject({ result: 'success', witness: undefined });
      expect(both.t).toBeLessThan(surface.t);
    },
  );

  it('under surface the pieces are ignored: the same lines as the recording without them', () => {
    const lines = readJsonLines(fixturePath('claude_code', 'record-normal-turn'));
    const plain = withoutPieces(lines);
    expect(plain.length).toBeLessThan(lines.length);
    const surface = replay(lines, 'surface').map((s) => JSON.stringify(s));
    expect(surface).toEqual(replay(plain).map((s) => JSON.stringify(s)));
    // And asking for `both` of a recording without pieces changes nothing either.
    expect(replay(plain, 'both').map((s) => JSON.stringify(s))).toEqual(surface);
  });

  it('a piece in a format the reader does not know steps aside: the screen alone decides', () => {
    const lines = readJsonLines(fixturePath('claude_code', 'record-normal-turn'));
    let changed = false;
    const odd: Lines = lines.map(([n, text]) => {
      const line = parsed(text);
      if (changed || line.type !== 'record_piece') return [n, text];
      changed = true;
      return [n, JSON.stringify({ ...line, text: '{"type":"a-line-of-a-newer-version"}' })];
    });
    const states = replay(odd);
    const last = states.at(-1)!;
    expect(last.witness).toMatchObject({
      authority: 'both',
      record: 'stepped_aside',
      why: expect.stringContaining('a-line-of-a-newer-version'),
    });
    const surface = outcomes(replay(lines, 'surface'));
    expect(outcomes(states)).toEqual([{ ...surface[0]!, witness: 'surface' }]);
  });

  it('a recording naming a reader paneward does not have replays on the screen alone', () => {
    const lines = readJsonLines(fixturePath('cline', 'record-normal-turn'));
    const unknownReader: Lines = lines.map(([n, text]) => {
      const line = parsed(text);
      if (line.type !== 'header') return [n, text];
      return [
        n,
        JSON.stringify({ ...line, sessionRecord: { reader: 'no_such_cli', kind: 'jsonl' } }),
      ];
    });
    const states = replay(unknownReader);
    expect(states.every((s) => s.witness === undefined)).toBe(true);
    expect(states.map((s) => JSON.stringify(s))).toEqual(
      replay(lines, 'surface').map((s) => JSON.stringify(s)),
    );
  });

  it("the journal keeps the record's evidence, never its text", async () => {
    const rec = parseRecording(readJsonLines(fixturePath('cline', 'record-normal-turn')));
    const { pipeline, clock } = pipelineFor(rec);
    playRecording(rec, pipeline, clock);
    await pipeline.journal.flush();
    const journal = pipeline.journal.read().map((r) => encodeLine(r));
    pipeline.dispose();
    const ended = journal.map((l) => parsed(l)).find((r) => r.kind === 'turn.ended');
    expect(ended).toMatchObject({
      witness: 'both',
      record: { file: expect.stringMatching(/\.messages\.json$/), event: 'assistant' },
    });
    // The reply's text is in the record's pieces and on screen, but not in the journal.
    const piece = rec.lines.findLast((l) => l.type === 'record_piece')!;
    const doc = JSON.parse(piece.type === 'record_piece' ? piece.text : '{}') as {
      messages: Array<{ role: string; content: Array<{ text?: string }> }>;
    };
    const reply = doc.messages.find((m) => m.role === 'assistant')!.content[0]!.text!;
    expect(reply.length).toBeGreaterThan(20);
    expect(journal.join('')).not.toContain(reply.slice(0, 20));
  });

  it('replays deterministically', () => {
    const file = fixturePath('cline', 'record-normal-turn');
    const once = replay(readJsonLines(file)).map((s) => JSON.stringify(s));
    expect(replay(readJsonLines(file)).map((s) => JSON.stringify(s))).toEqual(once);
  });
});

describe('recordings without the session record', () => {
  // The public states the bundled Claude Code recording printed before recordings could hold
  // the session record: replay must print them byte for byte, whatever the authority default.
  it('replay as before, byte for byte', () => {
    const lines = readJsonLines(`${ROOT}recordings/claude_code/normal-turn.jsonl`);
    const states = replay(lines);
    const printed = states.map((s) => JSON.stringify(s) + '\n').join('');
    expect(printed).not.toContain('witness');
    // The one field added since (a dialog read as a question, null here) is all that changed:
    // without it, the bytes as they were.
    const withoutQuestion = (s: (typeof states)[number]) => {
      const { question: _added, ...surface } = s.surface;
      return { ...s, surface };
    };
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(states.every((s) => s.surface.question === null)).toBe(true);
    expect(sha(states.map((s) => JSON.stringify(withoutQuestion(s)) + '\n').join(''))).toBe(
      GOLDEN_NORMAL_TURN,
    );
    // And without the field the version policy added before it, the older bytes.
    const before = states
      .map((s) => {
        const { toolVersionVerified: _added, ...rest } = withoutQuestion(s);
        return JSON.stringify(rest) + '\n';
      })
      .join('');
    expect(sha(before)).toBe(GOLDEN_BEFORE_VERSION_FIELD);
    expect(sha(printed)).toBe(GOLDEN_WITH_QUESTION);
  });
});

const GOLDEN_NORMAL_TURN = '920a918b888c394dccf77ff56ba4b8f71f938f1686d5185e25bb7bb75e242391';
const GOLDEN_WITH_QUESTION = 'ee2cccd5e78a0dc0ab2b209a817bb04a71eaabf402d5402cec53fb19c072465f';
const GOLDEN_BEFORE_VERSION_FIELD =
  'cc9499f5941e9471bc5c429b862df8b4abc575e5327e387495efb11ee8980976';
