/**
 * Cline's two files, read in the orders a busy machine reads them. A real recording
 * (`test/fixtures/cline/record-turn-then-interrupted.jsonl`: a quick reply, then a reply
 * interrupted with Escape) replayed as recorded, and in variants of its timing: the second
 * prompt typed moments after the first turn ended, and Cline's log read late, after the screen
 * already shows the idle prompt (its `aborted` line) or after the messages (its run's start).
 * Cline writes a prompt into its messages only as the run ends and draws an interrupted reply
 * like a finished one, so without the log's start of the run the first turn's success was taken
 * for the second's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRecording, pipelineFor, playRecording } from '../../src/replay/replay.js';
import type { RecordingLine } from '../../src/schemas/recording.js';
import type { TurnPayload } from '../../src/schemas/turn-payload.js';

const FIXTURE = 'test/fixtures/cline/record-turn-then-interrupted.jsonl';
type Line = Exclude<RecordingLine, { type: 'header' }>;
type Json = Record<string, unknown>;

const raw = readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);
const header = JSON.parse(raw[0]!) as { startedAtEpochMs: number };
const original = raw.slice(1).map((l) => JSON.parse(l) as Line);
const epochOf = (t: number) => header.startedAtEpochMs + t * 1000;

const isLog = (l: Line) => l.type === 'record_piece' && l.file.endsWith('cline.log');
const logEvent = (l: Line): string | undefined =>
  isLog(l) ? ((JSON.parse((l as { text: string }).text) as Json).event as string) : undefined;
const messages = (l: Line) => l.type === 'record_piece' && l.file.endsWith('.messages.json');
const inputs = original.filter((l) => l.type === 'input');
const [FIRST, SECOND] = inputs as [Line, Line];

/** The second turn's lines moved `dt` seconds earlier, the record's own times with them. */
function sooner(lines: readonly Line[], dt: number): Line[] {
  const from = SECOND.t - dt;
  const cut = epochOf(SECOND.t) - 1000;
  const shiftIso = (iso: string) => {
    const ms = Date.parse(iso);
    return ms >= cut ? new Date(ms - dt * 1000).toISOString() : iso;
  };
  return lines.flatMap((l): Line[] => {
    // The idle screen between the turns is shorter by `dt`.
    if (l.t >= from && l.t < SECOND.t) return [];
    if (l.t < SECOND.t) return [l];
    const t = +(l.t - dt).toFixed(3);
    if (l.type !== 'record_piece') return [{ ...l, t }];
    const doc = JSON.parse(l.text) as Json;
    if (isLog(l))
      return [{ ...l, t, text: JSON.stringify({ ...doc, time: shiftIso(doc.time as string) }) }];
    const msgs = (doc.messages as Json[]).map((m) =>
      typeof m.ts === 'number' && m.ts >= cut ? { ...m, ts: m.ts - dt * 1000 } : m,
    );
    const updated = shiftIso(doc.updated_at as string);
    return [
      { ...l, t, text: JSON.stringify({ ...doc, updated_at: updated, messages: msgs }, null, 2) },
    ];
  });
}

/** The lines `which` picks read `dt` seconds later than they were (in time order again). */
function later(lines: readonly Line[], which: (l: Line) => boolean, dt: number): Line[] {
  const moved = lines.map((l) => (which(l) ? { ...l, t: +(l.t + dt).toFixed(3) } : l));
  return moved
    .map((l, i) => ({ l, i }))
    .sort((a, b) => a.l.t - b.l.t || a.i - b.i)
    .map(({ l }) => l);
}

/** Replays the lines; each ended turn's payload (its last word), in order. */
function replay(lines: readonly Line[]): TurnPayload[] {
  const numbered: Array<[number, string]> = [
    [1, raw[0]!],
    ...lines.map((l, i): [number, string] => [i + 2, JSON.stringify(l)]),
  ];
  const rec = parseRecording(numbered);
  const ended = new Map<string, TurnPayload>();
  const { pipeline, clock } = pipelineFor(rec, {
    onPayload: (p) => {
      if (p.ended) ended.set(p.turnId, p);
    },
  });
  playRecording(rec, pipeline, clock);
  pipeline.dispose();
  return [...ended.values()];
}

const outcomes = (ps: TurnPayload[]) =>
  ps.map((p) => `${p.result} ${p.evidence.witness} ${p.reply?.source ?? '-'}`);

describe('Cline: the log and the messages read in any order', () => {
  it('the recording: a success from both, then an interruption from the log', () => {
    // What the variants below build on: the log says when each run started and that the second
    // was aborted; the messages get each prompt only as its run ends.
    const log = original.filter(isLog).map(logEvent);
    expect(log.filter((e) => e === 'agent.run-started')).toHaveLength(2);
    expect(log).toContain('agent.run-finished');
    const runStarts = original.filter((l) => logEvent(l) === 'agent.run-started');
    expect(runStarts[1]!.t).toBeGreaterThan(SECOND.t);
    expect(
      original.filter(messages).every((l) => l.t < SECOND.t || l.t > runStarts[1]!.t + 3),
    ).toBe(true);
    expect(outcomes(replay(original))).toEqual([
      'success both record',
      'interrupted record screen',
    ]);
  });

  it('the second prompt moments after the first turn, the log’s `aborted` read after the idle screen', () => {
    const dt = +(SECOND.t - FIRST.t - 1.2).toFixed(3);
    const quick = sooner(original, dt);
    const second = quick.filter((l) => l.type === 'input')[1]!;
    // The first prompt's own time in the messages is within the 2 s a record's turn may start
    // before the pane's: the first turn's success is near enough to be taken for the second's.
    const doc = JSON.parse(
      (original.filter((l) => messages(l) && l.t < SECOND.t).at(-1) as { text: string }).text,
    ) as { messages: Array<{ role: string; ts: number }> };
    const firstPromptAt =
      (doc.messages.find((m) => m.role === 'user')!.ts - header.startedAtEpochMs) / 1000;
    expect(second.t - firstPromptAt).toBeGreaterThan(0);
    expect(second.t - firstPromptAt).toBeLessThan(2);
    const ending = (l: Line) =>
      l.t > second.t && ((isLog(l) && logEvent(l) !== 'agent.run-started') || messages(l));
    const lagging = later(quick, ending, 1.5);
    // The screen stands at its last picture (the idle prompt) before anything of the ending is
    // read.
    const frames = lagging.filter((l) => l.type === 'frame') as Array<{ t: number; text: string }>;
    const last = frames.at(-1)!.text;
    const settled = frames.find((f) => f.t > second.t && f.text === last)!;
    const aborted = lagging.find(
      (l) => isLog(l) && logEvent(l) === 'agent.run-finished' && l.t > second.t,
    )!;
    expect(settled.t).toBeLessThan(aborted.t);
    expect(outcomes(replay(lagging))).toEqual(['success both record', 'interrupted record screen']);
  });

  it('the log’s start of a run read after the messages that ended it', () => {
    // The reply is the messages' and stays this turn's; the late start starts nothing.
    const firstStart = original.find((l) => logEvent(l) === 'agent.run-started')!;
    const firstDone = original.filter((l) => messages(l) && l.t < SECOND.t).at(-1)!;
    const late = later(
      original,
      (l) => l === firstStart,
      +(firstDone.t - firstStart.t + 0.01).toFixed(3),
    );
    const at = (l: Line) => late.findIndex((x) => x.type === l.type && x.t === l.t && x === l);
    expect(late.findIndex((x) => logEvent(x) === 'agent.run-started')).toBeGreaterThan(
      at(firstDone),
    );
    const [first] = replay(late);
    expect(first).toMatchObject({
      result: 'success',
      evidence: { witness: 'both' },
      reply: { text: 'OK.', source: 'record' },
    });
  });
});
