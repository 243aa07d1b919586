import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, listSegments, readSegments, segmentName } from '../../src/journal/segments.js';
import { SegmentWriter } from '../../src/journal/writer.js';
import { restarted } from './internal/records.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-links-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

function openError(dataDir: string): Error {
  try {
    new Journal({ dataDir });
  } catch (error) {
    return error as Error;
  }
  throw new Error('the journal opened');
}

async function journalOf(dataDir: string, n: number, segmentBytes?: number): Promise<void> {
  const j = new Journal({ dataDir, segmentBytes });
  for (let i = 1; i <= n; i++) await j.append(restarted('t1', i));
  await j.close();
}

describe('symbolic links in the journal', () => {
  it('a segment that is a link is refused, naming it; its target is neither chmod-ed nor appended to', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 3);
    const seg = listSegments(journalDir(data))[0]!.file;
    const target = join(dir, 'elsewhere.jsonl');
    renameSync(seg, target);
    chmodSync(target, 0o644);
    const before = readFileSync(target);
    symlinkSync(target, seg);
    const error = openError(data);
    expect(error.message).toContain(seg);
    expect(error.message).toContain('is a symbolic link');
    expect(error.message).not.toContain('\n');
    expect(mode(target)).toBe(0o644);
    expect(readFileSync(target)).toEqual(before);
    // A reader (`paneward journal`) refuses it too rather than read through it.
    expect(() => readSegments(journalDir(data))).toThrow(/is a symbolic link/);
    // The lock was given back: with the link replaced by the file, the journal opens.
    rmSync(seg);
    renameSync(target, seg);
    const j = new Journal({ dataDir: data });
    expect(j.read().map((r) => r.seq)).toEqual([1, 2, 3]);
    await j.close();
  });

  it('a journal folder that is a link is refused; the folder it points at is left as it is', () => {
    const data = join(dir, 'data');
    const target = join(dir, 'other');
    mkdirSync(data);
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    symlinkSync(target, journalDir(data));
    const error = openError(data);
    expect(error.message).toContain(journalDir(data));
    expect(error.message).toContain('is a symbolic link');
    expect(mode(target)).toBe(0o755);
  });

  it('links planted where the next segments go are never written through: the append fails, naming one', async () => {
    const data = join(dir, 'data');
    const j = new Journal({ dataDir: data, segmentBytes: 600 });
    await j.append(restarted('t1', 1));
    const target = join(dir, 'planted.jsonl');
    for (let seq = 2; seq <= 60; seq++) {
      symlinkSync(target, join(journalDir(data), segmentName(seq)));
    }
    let failed: Error | null = null;
    const acked: number[] = [1];
    for (let i = 2; i <= 60 && failed === null; i++) {
      await j.append(restarted('t1', i)).then(
        (r) => acked.push(r.seq),
        (error: Error) => (failed = error),
      );
    }
    expect(failed).not.toBeNull();
    expect(failed!.message).toMatch(/segment-0+\d+\.jsonl is a symbolic link/);
    expect(j.failure?.message).toContain('is a symbolic link');
    expect(existsSync(target)).toBe(false);
    await j.close();
    for (let seq = 2; seq <= 60; seq++) rmSync(join(journalDir(data), segmentName(seq)));
    const again = new Journal({ dataDir: data });
    expect(again.read().map((r) => r.seq)).toEqual(acked);
    await again.close();
  });

  it('a link planted as the probe file is removed, never written through', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 2);
    const target = join(dir, 'victim');
    writeFileSync(target, 'keep me');
    symlinkSync(target, join(journalDir(data), '.probe'));
    new SegmentWriter(journalDir(data), 16, true, { file: null, size: 0 }).probe();
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(existsSync(join(journalDir(data), '.probe'))).toBe(false);
  });
});

describe('duplicated segment files', () => {
  it('a copy of a segment under another first seq: each record is read once', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 5);
    const seg = listSegments(journalDir(data))[0]!.file;
    copyFileSync(seg, join(journalDir(data), segmentName(4)));
    const j = new Journal({ dataDir: data });
    expect(j.read().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(j.readAfter(0).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(j.integrity.duplicateLines).toBeGreaterThan(0);
    const next = await j.append(restarted('t1', 6));
    expect(next.seq).toBe(6);
    await j.close();
    const again = new Journal({ dataDir: data });
    expect(again.read().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    await again.close();
  });

  it('two segment files starting at the same record are refused, naming both', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 3);
    const seg = listSegments(journalDir(data))[0]!.file;
    const copy = join(journalDir(data), 'segment-0000000000001.jsonl');
    copyFileSync(seg, copy);
    const error = openError(data);
    expect(error.message).toContain(seg);
    expect(error.message).toContain(copy);
  });
});
