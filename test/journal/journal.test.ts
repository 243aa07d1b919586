import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toArray, firstValueFrom, take } from 'rxjs';
import { Journal } from '../../src/journal/journal.js';
import { decodeLine, encodeLine } from '../../src/journal/codec.js';
import { journalDir, listSegments, readRecords } from '../../src/journal/segments.js';
import type { JournalRecord, RecordDraft } from '../../src/schemas/record.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const attached = (id: string, target = '%1'): RecordDraft => ({
  kind: 'terminal.attached',
  terminalId: id,
  target,
  tool: 'claude_code',
  toolVersion: null,
  watchdogBudgetSeconds: 0,
  readopted: false,
});
const turnStarted = (id: string, turnId: string): RecordDraft => ({
  kind: 'turn.started',
  terminalId: id,
  turnId,
  source: 'explicit_input',
  startedAt: 10,
});
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('journal lines', () => {
  it('are JSON with a CRC of the record; any change to a line is detected', () => {
    const line = encodeLine({ v: 1, seq: 7, kind: 'x', text: 'é "q"' }).trimEnd();
    expect(JSON.parse(line)).toMatchObject({ seq: 7, crc: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(decodeLine(line)).toEqual({ v: 1, seq: 7, kind: 'x', text: 'é "q"' });
    expect(decodeLine(line.replace('"seq":7', '"seq":8'))).toBeNull();
    expect(decodeLine(line.slice(0, -3))).toBeNull();
    expect(decodeLine('{"v":1}')).toBeNull();
  });
});

describe('Journal', () => {
  it('hands out seq at once and acknowledges only after the batch is on disk', async () => {
    const j = new Journal({ dataDir: dir });
    const acked: number[] = [];
    j.records$.subscribe((r) => acked.push(r.seq));
    const a = j.append(attached('t1'));
    const b = j.append(turnStarted('t1', 'turn-1'));
    expect(j.lastSeq).toBe(2);
    expect(j.durableSeq).toBe(0);
    expect(acked).toEqual([]);
    const [ra, rb] = await Promise.all([a, b]);
    expect([ra.seq, rb.seq]).toEqual([1, 2]);
    expect(acked).toEqual([1, 2]);
    // Both were written together and are on disk now.
    const seg = listSegments(journalDir(dir))[0]!.file;
    expect(lines(seg).map((l) => (decodeLine(l) as { seq: number }).seq)).toEqual([1, 2]);
    expect(ra).toMatchObject({
      v: 1,
      terminalId: 't1',
      kind: 'terminal.attached',
      at: expect.any(String),
    });
    await j.close();
  });

  it('continues seq after a restart and reads back every record', async () => {
    const j1 = new Journal({ dataDir: dir });
    for (let i = 0; i < 5; i++) await j1.append(turnStarted('t1', `turn-${i + 1}`));
    await j1.close();
    const j2 = new Journal({ dataDir: dir });
    expect(j2.lastSeq).toBe(5);
    expect((await j2.append(attached('t2'))).seq).toBe(6);
    expect(j2.read().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(j2.read(4).map((r) => r.seq)).toEqual([5, 6]);
    expect(j2.read(0, 't2').map((r) => r.seq)).toEqual([6]);
    expect(j2.index.nextTurn).toBe(6);
    await j2.close();
  });

  it('cuts off a torn last line on open and keeps everything before it', async () => {
    const j1 = new Journal({ dataDir: dir });
    for (let i = 0; i < 3; i++) await j1.append(turnStarted('t1', `turn-${i + 1}`));
    await j1.close();
    const seg = listSegments(journalDir(dir))[0]!.file;
    const size = statSync(seg).size;
    appendFileSync(seg, '{"v":1,"seq":4,"at":"2026-01-01T00:00:00.000Z","terminalId":"t1","ki');
    const j2 = new Journal({ dataDir: dir });
    expect(j2.repairedBytes).toBeGreaterThan(0);
    expect(statSync(seg).size).toBe(size);
    expect(j2.lastSeq).toBe(3);
    expect((await j2.append(attached('t1'))).seq).toBe(4);
    expect(readRecords(journalDir(dir)).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    await j2.close();
  });

  it('opens a journal damaged before its end, naming the file and line it skips', async () => {
    const j1 = new Journal({ dataDir: dir });
    for (let i = 0; i < 3; i++) await j1.append(turnStarted('t1', `turn-${i + 1}`));
    await j1.close();
    const seg = listSegments(journalDir(dir))[0]!.file;
    const text = readFileSync(seg, 'utf8').replace('"turn-2"', '"turn-9"');
    writeFileSync(seg, text);
    const j2 = new Journal({ dataDir: dir });
    expect(j2.damaged).toEqual([{ file: seg, line: 2, seq: 2 }]);
    expect(j2.read().map((r) => r.seq)).toEqual([1, 3]);
    expect((await j2.append(attached('t1'))).seq).toBe(4);
    await j2.close();
  });

  it('one writer per data directory: a second one is refused while the first holds it', async () => {
    const j1 = new Journal({ dataDir: dir });
    expect(() => new Journal({ dataDir: dir })).toThrow(/in use by paneward pid \d+/);
    await j1.close();
    const j2 = new Journal({ dataDir: dir });
    await j2.close();
  });

  it('takes over a lock left by a process that is gone', async () => {
    writeFileSync(join(dir, 'lock'), '999999999\n');
    const j = new Journal({ dataDir: dir });
    expect(readFileSync(join(dir, 'lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    await j.close();
  });

  it('rotates segments by size, starts each with a checkpoint, and keeps a bounded number', async () => {
    const j = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 3 });
    await j.append(attached('t1'));
    for (let i = 0; i < 40; i++) await j.append(turnStarted('t1', `turn-${i + 1}`));
    const segments = listSegments(journalDir(dir));
    expect(segments.length).toBe(3);
    for (const seg of segments.slice(1)) {
      const first = decodeLine(lines(seg.file)[0]!) as unknown as JournalRecord;
      expect(first.kind).toBe('checkpoint');
      expect(first.seq).toBe(seg.firstSeq);
    }
    await j.close();
    // Restarting from the newest segment alone still knows what is attached and the turn ids.
    const again = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 3 });
    expect(again.index.attached().map(([id]) => id)).toEqual(['t1']);
    expect(again.index.nextTurn).toBe(41);
    const seqs = again.read().map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    await again.close();
  });

  it('follow: what is on disk, then what comes, with no gap and no duplicate', async () => {
    const j = new Journal({ dataDir: dir });
    for (let i = 0; i < 3; i++) await j.append(turnStarted('t1', `turn-${i + 1}`));
    const got = firstValueFrom(j.follow(1).pipe(take(4), toArray()));
    await j.append(attached('t2'));
    await j.append(attached('t3'));
    expect((await got).map((r) => r.seq)).toEqual([2, 3, 4, 5]);
    await j.close();
  });

  it('an in-memory journal behaves the same but writes nothing', async () => {
    const j = new Journal({ dataDir: null });
    await j.append(attached('t1'));
    expect(j.read().map((r) => r.kind)).toEqual(['terminal.attached']);
    expect(j.recent('t1')).toHaveLength(1);
    await j.close();
    await expect(j.append(attached('t1'))).rejects.toMatchObject({ code: 'stopped' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('restore index', () => {
  it('knows what is attached, each last turn, the open turn and the watchdog window', async () => {
    const j = new Journal({ dataDir: null });
    await j.append(attached('t1'));
    await j.append(attached('t2'));
    await j.append(turnStarted('t1', 'turn-1'));
    await j.append({
      kind: 'turn.ended',
      terminalId: 't1',
      turnId: 'turn-1',
      source: 'explicit_input',
      outcome: 'success',
      t: 20,
    });
    await j.append({
      kind: 'turn.started',
      terminalId: 't1',
      turnId: 'turn-2',
      source: 'surface_inference',
      startedAt: 30,
    });
    await j.append({
      kind: 'watchdog.window',
      terminalId: 't1',
      reason: 'started',
      sessionStartedAt: 5,
      budgetSeconds: 60,
    });
    await j.append({ kind: 'terminal.detached', terminalId: 't2' });
    expect(j.index.attached().map(([id]) => id)).toEqual(['t1']);
    expect(j.index.facts('t1')).toEqual({
      request: { target: '%1', tool: 'claude_code', toolVersion: null, watchdogBudgetSeconds: 0 },
      lastTurn: { result: 'success', source: 'explicit_input', turnId: 'turn-1', at: 20 },
      openTurn: {
        turn: { id: 'turn-2', source: 'surface_inference', startedAt: 30 },
        hadEvidence: true,
      },
      watchdog: { sessionStartedAt: 5, fired: false },
    });
    expect(j.index.nextTurn).toBe(3);
    await j.append({
      kind: 'watchdog.cancel',
      terminalId: 't1',
      aggregateType: 'runtime_control',
      aggregateId: 't1',
      eventKind: 'runtime.watchdog.cancel',
      reason: 'wall_clock_exceeded',
      sessionStartedAt: '1970-01-01T00:00:05.000Z',
      firedAt: '1970-01-01T00:01:05.000Z',
      elapsedSeconds: 60,
      configuredBudgetSeconds: 60,
    });
    expect(j.index.facts('t1')?.watchdog).toEqual({ sessionStartedAt: 5, fired: true });
    await j.close();
  });
});
