/**
 * What replay tells a pipeline of a recording's session-record pieces: the same reports, in the
 * same order, as the live observer would (docs/witness.md, "In recordings"). Played from real
 * recordings and variants of them, and read where the pipeline takes them (`sessionRecord`).
 */
import { describe, expect, it } from 'vitest';
import type { ObserverReport } from '../../src/sessions/observer.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
  staleActiveSecondsOf,
} from '../../src/replay/replay.js';
import { STALE_ACTIVE_MARGIN_SECONDS } from '../../machines/turnPhase.js';
import { fixturePath } from './ground-truth.js';

type Lines = Array<[number, string]>;
const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;

/** Every report replay hands the pipeline's session-record side, with the line's time. */
function reports(lines: Lines): Array<{ t: number; report: ObserverReport }> {
  const rec = parseRecording(lines);
  const { pipeline, clock } = pipelineFor(rec);
  const seen: Array<{ t: number; report: ObserverReport }> = [];
  const take = pipeline.sessionRecord.bind(pipeline);
  pipeline.sessionRecord = (t, report) => {
    seen.push({ t, report });
    take(t, report);
  };
  try {
    playRecording(rec, pipeline, clock);
  } finally {
    pipeline.dispose();
  }
  return seen;
}

/** The recording with each piece line passed through `change` (its index among the pieces). */
function piecesChanged(
  lines: Lines,
  change: (piece: Record<string, unknown>, i: number) => Record<string, unknown>,
): Lines {
  let i = 0;
  return lines.map(([n, text]) => {
    const line = parsed(text);
    if (line.type !== 'record_piece') return [n, text];
    return [n, JSON.stringify(change(line, i++))];
  });
}

const claude = () => readJsonLines(fixturePath('claude_code', 'record-normal-turn'));
const statuses = (r: ReturnType<typeof reports>) =>
  r.flatMap(({ report }) => (report.type === 'status' ? [report.status] : []));
const events = (r: ReturnType<typeof reports>) =>
  r.flatMap(({ t, report }) =>
    report.type === 'events' ? report.events.map((e) => ({ t, e })) : [],
  );

describe('replay of session-record pieces', () => {
  it('follows the record from its first piece, and never sends an empty batch of events', () => {
    const lines = claude();
    const r = reports(lines);
    const firstPiece = parsed(lines.find(([, text]) => parsed(text).type === 'record_piece')![1]);
    expect(r[0]).toEqual({
      t: firstPiece.t,
      report: { type: 'status', status: { state: 'following', file: firstPiece.file, pid: 0 } },
    });
    expect(statuses(r)).toHaveLength(1);
    for (const { report } of r) if (report.type === 'events') expect(report.events).not.toEqual([]);
    expect(events(r).length).toBeGreaterThan(0);
    expect(r.some(({ report }) => report.type === 'reply')).toBe(true);
  });

  it('moves the record’s own times onto the recording’s clock, and drops them when its start is unknown', () => {
    const lines = claude();
    const timed = events(reports(lines)).filter(({ e }) => e.atMs !== undefined);
    expect(timed.length).toBeGreaterThan(0);
    // Written a moment before it was read: within a few seconds of the line's time.
    for (const { t, e } of timed) expect(Math.abs(e.atMs! / 1000 - t)).toBeLessThan(5);
    const noStart: Lines = lines.map(([n, text]) => {
      const line = parsed(text);
      if (line.type !== 'header') return [n, text];
      const { startedAtEpochMs: _dropped, ...header } = line;
      return [n, JSON.stringify(header)];
    });
    const untimed = events(reports(noStart));
    expect(untimed).toHaveLength(events(reports(lines)).length);
    expect(untimed.every(({ e }) => e.atMs === undefined)).toBe(true);
  });

  it('a piece of another file is another record: searching, then following that one', () => {
    const lines = claude();
    const total = events(reports(lines)).length;
    const moved = piecesChanged(lines, (p, i) => (i >= 2 ? { ...p, file: 'second.jsonl' } : p));
    const r = reports(moved);
    expect(statuses(r)).toEqual([
      { state: 'following', file: expect.not.stringMatching(/^second/), pid: 0 },
      { state: 'searching' },
      { state: 'following', file: 'second.jsonl', pid: 0 },
    ]);
    expect(events(r).length).toBeGreaterThan(0);
    expect(events(r).length).toBeLessThanOrEqual(total);
  });

  it('a piece read after its file was replaced tells the reset, naming why and the file', () => {
    const lines = claude();
    const reset = piecesChanged(lines, (p, i) => (i === 3 ? { ...p, reset: 'replaced' } : p));
    const r = reports(reset);
    const resets = r.filter(({ report }) => report.type === 'reset');
    const fourth = parsed(reset.filter(([, text]) => parsed(text).type === 'record_piece')[3]![1]);
    expect(resets).toEqual([
      { t: fourth.t, report: { type: 'reset', why: 'replaced', file: fourth.file } },
    ]);
    expect(reports(lines).some(({ report }) => report.type === 'reset')).toBe(false);
  });

  it('the first piece the reader does not know steps aside for good: nothing is reported after it', () => {
    const lines = claude();
    const odd = piecesChanged(lines, (p, i) =>
      i === 2 ? { ...p, text: '{"type":"a-line-of-a-newer-version"}' } : p,
    );
    const r = reports(odd);
    const third = parsed(odd.filter(([, text]) => parsed(text).type === 'record_piece')[2]![1]);
    expect(r.at(-1)).toEqual({
      t: third.t,
      report: {
        type: 'status',
        status: {
          state: 'stepped_aside',
          why: expect.stringContaining('a-line-of-a-newer-version'),
          position: { file: third.file, offset: third.offset },
        },
      },
    });
  });

  it('side-record lines are read as the side record for the process named, marked as side', () => {
    const lines = readJsonLines(fixturePath('cline', 'record-interrupted'));
    const side = reports(lines).filter(
      ({ report }) => report.type === 'events' && report.side === true,
    );
    expect(side.length).toBeGreaterThan(0);
    for (const { report } of side)
      if (report.type === 'events') expect(report.events).not.toEqual([]);
  });

  it('a side-record line for a reader that has none steps aside, naming why', () => {
    const lines = claude();
    const withSide = piecesChanged(lines, (p, i) =>
      i === 1 ? { ...p, side: { pid: 4, startedAtMs: 0 } } : p,
    );
    const r = reports(withSide);
    const second = parsed(
      withSide.filter(([, text]) => parsed(text).type === 'record_piece')[1]![1],
    );
    expect(statuses(r)).toEqual([
      expect.objectContaining({ state: 'following' }),
      {
        state: 'stepped_aside',
        why: 'a side record piece, and the reader has none',
        position: { file: second.file, offset: second.offset },
      },
    ]);
    expect(r.at(-1)!.t).toBe(second.t);
  });
});

describe('the end of a replay', () => {
  it('the stale-active window follows the settle window unless one is given', () => {
    const c = KernelConfig.parse({ settleSeconds: 3 });
    expect(staleActiveSecondsOf(c)).toBe(3 + STALE_ACTIVE_MARGIN_SECONDS);
    expect(staleActiveSecondsOf({ ...c, staleActiveSeconds: 2 })).toBe(2);
  });

  it.each([
    // Settle 1 s: stale-active 1 + 3 s outlasts stability and settle (1 + 1 s).
    ['the stale-active window is the longer', { stabilitySeconds: 1, settleSeconds: 1 }, 4],
    [
      'stability and settle are the longer',
      { stabilitySeconds: 30, settleSeconds: 2, staleActiveSeconds: 5 },
      32,
    ],
  ])('plays out every window due after the last line: %s', (_, config, after) => {
    const rec = parseRecording(claude());
    const { pipeline, clock } = pipelineFor(rec, { config });
    const times: number[] = [];
    const advance = pipeline.advance.bind(pipeline);
    pipeline.advance = (t) => {
      times.push(t);
      advance(t);
    };
    try {
      playRecording(rec, pipeline, clock);
    } finally {
      pipeline.dispose();
    }
    expect(times.at(-1)).toBeCloseTo(rec.lines.at(-1)!.t + after, 9);
  });
});
