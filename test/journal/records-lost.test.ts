import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, type RecordGap } from '../../src/journal/journal.js';
import { journalDir, listSegments, readRecords } from '../../src/journal/segments.js';
import type { RecordDraft } from '../../src/schemas/record.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-lost-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const attached = (id: string): RecordDraft => ({
  kind: 'terminal.attached',
  terminalId: id,
  target: '%1',
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
const mode = (path: string) => statSync(path).mode & 0o777;

describe('restart after a torn checkpoint', () => {
  it('restores from the previous segment: terminals are kept and turn ids are not handed out again', async () => {
    const j = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 4 });
    await j.append(attached('t1'));
    for (let i = 1; i <= 6; i++) await j.append(turnStarted('t1', `turn-${i}`));
    await j.close();
    const segments = listSegments(journalDir(dir));
    expect(segments.length).toBeGreaterThan(1);
    const newest = segments.at(-1)!.file;
    // The newest segment's first line (its checkpoint) torn half-way, as a crash leaves it.
    const first = readFileSync(newest, 'utf8').split('\n')[0]!;
    const lastSeqBefore = readRecords(journalDir(dir)).at(-1)!.seq;
    writeFileSync(newest, first.slice(0, first.length >> 1));
    const again = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 4 });
    expect(again.index.attached().map(([id]) => id)).toEqual(['t1']);
    expect(again.index.nextTurn).toBeGreaterThan(
      Math.max(
        ...readRecords(journalDir(dir)).flatMap((r) =>
          r.kind === 'turn.started' ? [Number(r.turnId.slice(5))] : [],
        ),
      ),
    );
    expect(again.lastSeq).toBe(segments.at(-1)!.firstSeq - 1);
    expect(again.lastSeq).toBeLessThanOrEqual(lastSeqBefore);
    await again.close();
  });
});

describe('damaged lines', () => {
  it('a complete last line with a bad CRC is reported and its seq is not handed out again', async () => {
    const j1 = new Journal({ dataDir: dir });
    for (let i = 1; i <= 3; i++) await j1.append(turnStarted('t1', `turn-${i}`));
    await j1.close();
    const seg = listSegments(journalDir(dir))[0]!.file;
    writeFileSync(seg, readFileSync(seg, 'utf8').replace('"turn-3"', '"turn-X"'));
    const j2 = new Journal({ dataDir: dir });
    expect(j2.damaged).toEqual([{ file: seg, line: 3, seq: 3 }]);
    expect(j2.lastSeq).toBe(3);
    expect((await j2.append(attached('t1'))).seq).toBe(4);
    await j2.close();
    // The damaged line stays on disk; the records on both sides of it are readable.
    expect(readRecords(journalDir(dir)).map((r) => r.seq)).toEqual([1, 2, 4]);
  });

  it('damage in an older segment leaves the rest readable, and a reader is told of the gap', async () => {
    const j1 = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 8 });
    for (let i = 1; i <= 12; i++) await j1.append(turnStarted('t1', `turn-${i}`));
    await j1.close();
    const oldest = listSegments(journalDir(dir))[0]!.file;
    writeFileSync(oldest, readFileSync(oldest, 'utf8').replace('"turn-2"', '"turn-Y"'));
    const j2 = new Journal({ dataDir: dir, segmentBytes: 600, retainSegments: 8 });
    const gaps: RecordGap[] = [];
    const seqs = j2.readAfter(0, { onGap: (g) => gaps.push(g) }).map((r) => r.seq);
    expect(seqs[0]).toBe(1);
    expect(seqs).not.toContain(2);
    expect(seqs.at(-1)).toBe(j2.durableSeq);
    expect(gaps).toEqual([{ from: 2, to: 2, reason: 'damaged' }]);
    await j2.close();
  });

  it('a reader resuming past what retention kept is told which records it missed', async () => {
    const j = new Journal({ dataDir: dir, segmentBytes: 400, retainSegments: 2, tailSize: 1 });
    for (let i = 1; i <= 30; i++) await j.append(turnStarted('t1', `turn-${i}`));
    const kept = listSegments(journalDir(dir))[0]!.firstSeq;
    expect(kept).toBeGreaterThan(3);
    const gaps: RecordGap[] = [];
    const got = j.readAfter(2, { onGap: (g) => gaps.push(g) });
    expect(got[0]!.seq).toBe(kept);
    expect(gaps).toEqual([{ from: 3, to: kept - 1, reason: 'retention' }]);
    await j.close();
  });
});

describe('the data directory', () => {
  it('is 0700 and its files 0600, also when it existed with looser modes', async () => {
    const fresh = join(dir, 'fresh');
    const j1 = new Journal({ dataDir: fresh });
    await j1.append(attached('t1'));
    expect(mode(fresh)).toBe(0o700);
    expect(mode(journalDir(fresh))).toBe(0o700);
    expect(mode(join(fresh, 'lock'))).toBe(0o600);
    expect(mode(listSegments(journalDir(fresh))[0]!.file)).toBe(0o600);
    await j1.close();
    chmodSync(fresh, 0o755);
    chmodSync(journalDir(fresh), 0o755);
    chmodSync(listSegments(journalDir(fresh))[0]!.file, 0o644);
    const j2 = new Journal({ dataDir: fresh });
    expect(mode(fresh)).toBe(0o700);
    expect(mode(journalDir(fresh))).toBe(0o700);
    expect(mode(listSegments(journalDir(fresh))[0]!.file)).toBe(0o600);
    await j2.close();
  });

  it('a lock whose pid now belongs to another live process does not block start', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => other.once('spawn', r));
      // As written by a paneward that is gone (its start time), and as an older lock (pid only).
      for (const content of [`${other.pid}\n1\n`, `${other.pid}\n`]) {
        writeFileSync(join(dir, 'lock'), content);
        const j = new Journal({ dataDir: dir });
        expect(readFileSync(join(dir, 'lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
        await j.close();
      }
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('startup errors are one line naming the path and what to do', () => {
    const file = join(dir, 'file');
    writeFileSync(file, '');
    const lockDir = join(dir, 'lockdir');
    mkdirSync(join(lockDir, 'lock'), { recursive: true });
    const cases: Array<[string, RegExp]> = [
      [file, /exists and is not a directory \(EEXIST\)/],
      [join(file, 'sub'), /is not a directory .*\(ENOTDIR\)/],
      [lockDir, /lockdir\/lock is a directory where a file belongs; remove it \(EISDIR\)/],
    ];
    for (const [dataDir, reason] of cases) {
      let message = '';
      try {
        new Journal({ dataDir });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(reason);
      expect(message).toContain(`data directory ${dataDir}`);
      expect(message).toContain('choose another with --data-dir');
      expect(message).not.toContain('\n');
    }
  });
});
