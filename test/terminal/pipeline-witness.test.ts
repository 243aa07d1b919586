/**
 * The session record as a second witness, through the pipeline (docs/witness.md): the state
 * shows the witness and which one decided each outcome, the journal keeps the evidence (file,
 * offset, event name) and the anomalies, and the kernel's completion observer gets the
 * record's success as its payload.
 */
import { describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../src/profiles/session-record.js';
import { linePipeline } from './internal/line-profile.js';

const FILE = '/home/u/.claude/projects/-w/s.jsonl';
const started = (t: number): RecordEvent => ({
  type: 'turn_started',
  event: 'user',
  position: { file: FILE, offset: 0 },
  atMs: t * 1000,
});
const ended = (t: number, offset: number): RecordEvent => ({
  type: 'turn_ended',
  ending: { reason: 'success' },
  event: 'assistant.end_turn',
  position: { file: FILE, offset },
  atMs: t * 1000,
});

describe('pipeline with a session-record witness', () => {
  it('settles a success the record confirms at once, naming both witnesses and the evidence', async () => {
    const { p, frame, ofKind } = linePipeline({
      witness: { authority: 'both', windowSeconds: 3 },
    });
    // Nothing shows until the record is found: a CLI that never writes one reads as before.
    p.sessionRecord(0, { type: 'status', status: { state: 'searching' } });
    expect(p.state).not.toHaveProperty('witness');
    frame(0, 'ready');
    p.submit(1);
    p.sessionRecord(1, { type: 'status', status: { state: 'following', file: FILE, pid: 42 } });
    p.sessionRecord(1.1, { type: 'events', events: [started(1.05)] });
    frame(1.5, 'a\nworking');
    frame(2, 'a reply\nreplied');
    p.sessionRecord(2.1, { type: 'events', events: [ended(2.05, 1234)] });
    expect(p.state.lastTurn).toMatchObject({ result: 'success', witness: 'both', at: 2.1 });
    expect(p.state.witness).toMatchObject({ record: 'following', file: FILE });
    // The next poll: the kernel's completion observer takes the record's evidence as its
    // payload and completes the candidate before its stability window ran out.
    frame(2.3, 'a reply\nreplied');
    expect(p.state.completion).toMatchObject({
      status: 'completed',
      payload: { file: FILE, offset: 1234, event: 'assistant.end_turn' },
    });
    const [turnEnded] = await ofKind('turn.ended');
    expect(turnEnded).toMatchObject({
      outcome: 'success',
      witness: 'both',
      record: { file: FILE, offset: 1234, event: 'assistant.end_turn' },
    });
    // Evidence only: nothing of the record's text reaches the journal.
    expect(JSON.stringify(await ofKind('state'))).not.toContain('reply from');
  });

  it('a completion observer’s success completes the candidate at once, with no further poll', () => {
    const { p, frame } = linePipeline({ witness: { authority: 'both', windowSeconds: 3 } });
    frame(0, 'ready');
    const turnId = p.submit(1);
    frame(1.5, 'a\nworking');
    frame(2, 'a reply\nreplied');
    expect(p.state.completion?.status).toBe('candidate_complete');
    const ending = { turnId, observer: 'ci', ending: { reason: 'success' as const } };
    expect(p.observerEnding(2.1, ending)).toBeNull();
    expect(p.state.completion).toMatchObject({
      status: 'completed',
      payload: { observer: 'ci' },
    });
    expect(p.state.lastTurn).toMatchObject({ result: 'success', witness: 'both' });
  });

  it('steps aside on an unknown piece: a journal anomaly, the screen alone from then on', async () => {
    const { p, frame, at, ofKind } = linePipeline({
      witness: { authority: 'both', windowSeconds: 3 },
    });
    frame(0, 'ready');
    p.submit(1);
    p.sessionRecord(1, { type: 'status', status: { state: 'following', file: FILE, pid: 42 } });
    p.sessionRecord(1.1, { type: 'events', events: [started(1.05)] });
    p.sessionRecord(1.2, {
      type: 'status',
      status: {
        state: 'stepped_aside',
        why: 'line type "new"',
        position: { file: FILE, offset: 77 },
      },
    });
    expect(p.state.witness).toEqual({
      authority: 'both',
      record: 'stepped_aside',
      file: FILE,
      why: 'line type "new"',
    });
    frame(1.5, 'a\nworking');
    frame(2, 'a reply\nreplied');
    at(3.5);
    expect(p.state.lastTurn).toMatchObject({ result: 'success', witness: 'surface' });
    expect(await ofKind('anomaly')).toEqual([
      expect.objectContaining({
        anomaly: 'session_record_unknown',
        tool: 'lines',
        file: FILE,
        offset: 77,
        why: 'line type "new"',
      }),
    ]);
  });

  it('bounds a reason on its way to the state and the journal, and journals what was skipped', async () => {
    const { p, frame, ofKind } = linePipeline({
      witness: { authority: 'both', windowSeconds: 3 },
    });
    frame(0, 'ready');
    p.submit(1);
    p.sessionRecord(1, { type: 'status', status: { state: 'following', file: FILE, pid: 42 } });
    // A line over the cap passed over: the witness goes on following, and says so.
    const skippedWhy = 'a line of 2097152 bytes at offset 6, over the 1048576-byte cap: skipped';
    p.sessionRecord(1.1, {
      type: 'skipped',
      skip: { what: 'long_line', file: FILE, offset: 6, why: skippedWhy },
    });
    p.sessionRecord(1.1, {
      type: 'status',
      status: { state: 'following', file: FILE, pid: 42, why: skippedWhy },
    });
    expect(p.state.witness).toEqual({
      authority: 'both',
      record: 'following',
      file: FILE,
      why: skippedWhy,
    });
    // A reader's reason that carries a line's 20 KB (a reader's mistake) is withheld.
    const text = 'secret prompt text; '.repeat(1024);
    p.sessionRecord(1.2, {
      type: 'status',
      status: { state: 'stepped_aside', why: `line ${text}`, position: { file: FILE, offset: 77 } },
    });
    const withheld = `a reason of ${text.length + 5} characters, withheld`;
    expect(p.state.witness?.why).toBe(withheld);
    expect(await ofKind('anomaly')).toEqual([
      expect.objectContaining({
        anomaly: 'session_record_skipped',
        file: FILE,
        offset: 6,
        what: 'long_line',
        why: skippedWhy,
      }),
      expect.objectContaining({ anomaly: 'session_record_unknown', offset: 77, why: withheld }),
    ]);
    expect(JSON.stringify(await ofKind('state'))).not.toContain('secret');
  });

  it('shows a record refused before any was followed', () => {
    const { p } = linePipeline({ witness: { authority: 'both', windowSeconds: 3 } });
    const why = 'the record is a fifo, not a regular file: not read';
    p.sessionRecord(1, { type: 'status', status: { state: 'searching', why } });
    expect(p.state.witness).toEqual({ authority: 'both', record: 'searching', file: null, why });
  });

  it('without a witness the state has no witness fields', () => {
    const { p, frame, at } = linePipeline();
    frame(0, 'ready');
    p.submit(1);
    frame(1.5, 'a\nworking');
    frame(2, 'a reply\nreplied');
    at(3.5);
    expect(p.state.lastTurn.result).toBe('success');
    expect(p.state).not.toHaveProperty('witness');
    expect(p.state.lastTurn).not.toHaveProperty('witness');
  });
});
