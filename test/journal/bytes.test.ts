import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeLine } from '../../src/journal/codec.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, listSegments, readSegments } from '../../src/journal/segments.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { restarted } from './internal/records.js';

/** Cases the property tries (`PW_JOURNAL_RUNS` to try more). */
const RUNS = Number(process.env.PW_JOURNAL_RUNS ?? 120);

const CHILD = fileURLToPath(new URL('./internal/append-child.ts', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-bytes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every record the journal hands out after `afterSeq`, by each of its readers; they must agree. */
function readAll(j: Journal, afterSeq = 0): JournalRecord[] {
  const page = j.readAfter(afterSeq);
  expect(j.read(afterSeq)).toEqual(page);
  const followed: JournalRecord[] = [];
  j.follow(afterSeq)
    .subscribe((r) => followed.push(r))
    .unsubscribe();
  expect(followed).toEqual(page);
  return page;
}

/** Each seq once, in order. */
function expectOnceInOrder(records: JournalRecord[]): void {
  for (let i = 1; i < records.length; i++) {
    expect(records[i]!.seq).toBeGreaterThan(records[i - 1]!.seq);
  }
}

/** One line of a segment as written, and which record it holds (null for one added later). */
interface Line {
  bytes: Buffer;
  seq: number | null;
}

function linesOf(buf: Buffer): Line[] {
  const lines: Line[] = [];
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(0x0a, at);
    const bytes = buf.subarray(at, nl + 1);
    lines.push({ bytes, seq: (JSON.parse(bytes.toString('utf8')) as { seq: number }).seq });
    at = nl + 1;
  }
  return lines;
}

const damageArb = fc.record({
  seg: fc.nat(),
  pos: fc.nat(),
  how: fc.constantFrom('flip', 'set', 'not-utf8'),
  bit: fc.integer({ min: 0, max: 7 }),
  value: fc.integer({ min: 0, max: 255 }),
});

const caseArb = fc.record({
  count: fc.integer({ min: 3, max: 40 }),
  copies: fc.array(fc.record({ seg: fc.nat(), line: fc.nat(), atEnd: fc.boolean() }), {
    maxLength: 3,
  }),
  damage: fc.array(damageArb, { maxLength: 4 }),
  torn: fc.option(fc.record({ junk: fc.boolean(), cut: fc.nat() }), { nil: undefined }),
});

describe('the journal counts bytes', () => {
  it(
    'property: every acknowledged record is read back once, in order, or its own line was damaged; restarts agree',
    async () => {
      let run = 0;
      // A failing case (while fast-check shrinks it) leaves its journals open: closed after each.
      const open: Journal[] = [];
      const closeAll = async () => {
        for (const j of open.splice(0)) await j.close();
      };
      await fc.assert(
        fc
          .asyncProperty(caseArb, async ({ count, copies, damage, torn }) => {
            const data = join(dir, `run-${run++}`);
            const options = {
              dataDir: data,
              segmentBytes: 900,
              retainSegments: 1000,
              fsync: false,
            };
            const j1 = new Journal(options);
            open.push(j1);
            // Every record acknowledged, the checkpoints that start segments included.
            const acked = new Map<number, JournalRecord>();
            j1.records$.subscribe((r) => acked.set(r.seq, r));
            for (let i = 1; i <= count; i++) await j1.append(restarted(`t${i % 3}`, i));
            await j1.close();

            // The segments as lines; copies of lines inserted, a torn tail added.
            const files = listSegments(journalDir(data)).map((s) => s.file);
            const segs = files.map((f) => linesOf(readFileSync(f)));
            for (const c of copies) {
              const seg = segs[c.seg % segs.length]!;
              if (seg.length === 0) continue;
              const at = c.line % seg.length;
              const copy = { bytes: seg[at]!.bytes, seq: null };
              if (c.atEnd) segs.at(-1)!.push(copy);
              else seg.splice(at + 1, 0, copy);
            }
            const tails = segs.map(() => Buffer.alloc(0));
            // The record a crash was writing: whole but for its newline when the cut falls there.
            let unacked: JournalRecord | null = null;
            if (torn) {
              const last = [...acked.values()].at(-1)!;
              unacked = { ...last, seq: last.seq + 1 };
              const next = encodeLine(unacked);
              tails[tails.length - 1] = torn.junk
                ? Buffer.from('\u00ff{"v":1,"se', 'latin1')
                : Buffer.from(next).subarray(0, 1 + (torn.cut % (Buffer.byteLength(next) - 1)));
            }
            // Where each acknowledged record's line (its newline included) is.
            const place = new Map<number, { seg: number; start: number; end: number }>();
            const bufs = segs.map((lines, s) => {
              let at = 0;
              for (const l of lines) {
                if (l.seq !== null)
                  place.set(l.seq, { seg: s, start: at, end: at + l.bytes.length });
                at += l.bytes.length;
              }
              return Buffer.concat([...lines.map((l) => l.bytes), tails[s]!]);
            });
            // Damaged bytes, and the records whose own line they hit.
            const hit = new Set<number>();
            for (const d of damage) {
              const s = d.seg % bufs.length;
              const buf = bufs[s]!;
              if (buf.length === 0) continue;
              const pos = d.pos % buf.length;
              const before = buf[pos]!;
              buf[pos] =
                d.how === 'flip'
                  ? before ^ (1 << d.bit)
                  : d.how === 'set'
                    ? d.value
                    : 0x80 | d.value;
              if (buf[pos] === before) continue;
              for (const [seq, p] of place)
                if (p.seg === s && p.start <= pos && pos < p.end) hit.add(seq);
            }
            bufs.forEach((b, s) => writeFileSync(files[s]!, b));

            // Restart: every record whose line is intact is there, once, in order, unchanged.
            const j2 = new Journal(options);
            open.push(j2);
            const read2 = readAll(j2);
            expectOnceInOrder(read2);
            for (const r of read2) expect(r).toEqual(acked.get(r.seq) ?? unacked);
            const got = new Set(read2.map((r) => r.seq));
            for (const seq of acked.keys()) if (!hit.has(seq)) expect(got).toContain(seq);
            // What is missing was damaged, and the damage is reported.
            if (got.size < acked.size) expect(j2.integrity.damagedLines).toBeGreaterThan(0);
            // A torn tail is cut off, unless it is a whole record lacking only its newline (kept).
            if (unacked && !got.has(unacked.seq))
              expect(j2.integrity.repairedBytes).toBeGreaterThan(0);
            // New records after the damage: numbered after everything read, and all read back
            // (with the checkpoint that starts a new segment, when one does).
            const fresh: JournalRecord[] = [];
            const sub = j2.records$.subscribe((r) => fresh.push(r));
            const mine: JournalRecord[] = [];
            for (let i = 1; i <= 3; i++) mine.push(await j2.append(restarted('tnew', 1000 + i)));
            sub.unsubscribe();
            expect(fresh[0]!.seq).toBeGreaterThan(Math.max(0, ...got));
            expect(readAll(j2)).toEqual([...read2, ...fresh]);
            expect(j2.recent('tnew')).toEqual(mine);
            await j2.close();

            // A second restart reads the same history, the new records included, none glued.
            const j3 = new Journal(options);
            open.push(j3);
            expect(readAll(j3)).toEqual([...read2, ...fresh]);
            expect(j3.integrity.repairedBytes).toBe(0);
            const recent = j3.recent('tnew');
            expect(recent.at(-1)).toEqual(mine.at(-1));
            expect(mine.slice(-recent.length)).toEqual(recent);
            await j3.close();
            rmSync(data, { recursive: true, force: true });
          })
          .afterEach(closeAll),
        { numRuns: RUNS },
      );
    },
    Math.max(120_000, RUNS * 400),
  );

  it('a process killed (SIGKILL) while it appends loses no acknowledged record, and the next one appends on a fresh line', async () => {
    const data = join(dir, 'data');
    const acked = new Set<number>();
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, data, '4000'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const killAt = 40 + round * 37;
      let seen = 0;
      const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        seen = (out.match(/^ACK /gm) ?? []).length;
        if (seen >= killAt) child.kill('SIGKILL');
      });
      await ended;
      expect(child.signalCode).toBe('SIGKILL');
      for (const m of out.matchAll(/^ACK (\d+)$/gm)) acked.add(Number(m[1]));
      expect(acked.size).toBeGreaterThanOrEqual(killAt);

      const j = new Journal({ dataDir: data, segmentBytes: 4000 });
      const read = readAll(j);
      expectOnceInOrder(read);
      const got = new Set(read.map((r) => r.seq));
      for (const seq of acked) expect(got).toContain(seq);
      expect(j.damaged).toEqual([]);
      await j.close();
    }
    // Whatever the kills left, a byte damaged in the middle costs its own line only.
    const seg = listSegments(journalDir(data))[0]!.file;
    const buf = readFileSync(seg);
    const before = readSegments(journalDir(data)).records;
    const mid = buf.indexOf(0x0a, buf.length >> 1) + 5;
    expect(mid).toBeLessThan(buf.length - 1);
    buf[mid] = 0xff;
    writeFileSync(seg, buf);
    const j = new Journal({ dataDir: data, segmentBytes: 4000 });
    const after = readAll(j);
    expect(before.length - after.length).toBe(1);
    expect(j.integrity.damagedLines).toBe(1);
    // The new record (with the checkpoint before it when it starts a segment).
    const more: JournalRecord[] = [];
    j.records$.subscribe((r) => more.push(r));
    await j.append(restarted('t1', 9999));
    await j.close();
    const again = new Journal({ dataDir: data, segmentBytes: 4000 });
    expect(readAll(again)).toEqual([...after, ...more]);
    await again.close();
  }, 60_000);
});
