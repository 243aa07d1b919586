import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../scripts/internal/scale-measure.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir } from '../../src/journal/segments.js';
import type { JournalRecord, RecordDraft } from '../../src/schemas/record.js';

/** A flat string of `bytes` one-byte characters, unique to `i`, as a pane's screen is. */
function screen(i: number, bytes: number): string {
  return Buffer.from(`screen ${i} `.padEnd(bytes, 'x'), 'latin1').toString('latin1');
}

function heapAfterGc(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

describe('Journal memory', () => {
  it('keeps no screen alive through a string cut out of it', async () => {
    const journal = new Journal({ dataDir: null });
    const count = 100;
    const bytes = 64 * 1024;
    const before = heapAfterGc();
    for (let i = 0; i < count; i++) {
      // A reason read off the screen: a slice of it (a sliced string keeps its parent alive).
      const reason = screen(i, bytes).slice(0, 40);
      await journal.append({
        kind: 'turn.started',
        terminalId: 't1',
        turnId: reason,
        source: 'explicit_input',
        startedAt: i,
      });
    }
    const grown = heapAfterGc() - before;
    // Every record is still remembered, its reason intact...
    const kept = journal.recent('t1');
    expect(kept).toHaveLength(count);
    expect(kept.map((r) => (r as { turnId: string }).turnId)).toEqual(
      Array.from({ length: count }, (_, i) => screen(i, 40)),
    );
    // ...and the screens are not: holding them would take count × 64 KB (6.4 MB).
    expect(grown).toBeLessThan((count * bytes) / 8);
    await journal.close();
  });
});

describe('a journal on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pw-journal-memory-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A state record of about 300 bytes, as a terminal makes many of. */
  const state = (id: string, i: number): RecordDraft => ({
    kind: 'state',
    terminalId: id,
    t: i,
    changed: { 'surface.activeReasons': [`tick ${i} ${'·'.repeat(i % 7)}`], 'turn.since': i },
    transitions: [{ machine: 'turnPhase', from: 'ready', to: 'active', event: 'frame' }],
    evidence: null,
  });

  it("answers each terminal's latest records as it acknowledged them, holding none in memory", async () => {
    // The tail (the latest records of all terminals, for readers that keep up) is its own window.
    const journal = new Journal({
      dataDir: dir,
      fsync: false,
      segmentBytes: 256 * 1024,
      tailSize: 100,
    });
    const ids = Array.from({ length: 10 }, (_, i) => `t${i + 1}`);
    const before = heapAfterGc();
    const count = 10_000;
    const last: JournalRecord[] = [];
    for (let i = 0; i < count; i++) {
      const r = journal.append(state(ids[i % ids.length]!, i));
      if (i >= count - 100) last.push(await r);
      else if (i % 100 === 99) await r;
    }
    await journal.flush();
    const grown = heapAfterGc() - before;
    // Held in memory, the latest 500 of each terminal's records (~300 bytes each) would take
    // a few megabytes; what is held is an offset per record and the tail, with a few hundred
    // kilobytes of noise from the writer's own buffers.
    expect(grown).toBeLessThan(count * 100);

    // The latest 500 of each terminal, in order, out of segments the journal rotated through...
    expect(readdirSync(journalDir(dir)).length).toBeGreaterThan(2);
    const all = journal.read();
    for (const id of ids) {
      const want = all.filter((r) => r.terminalId === id).slice(-500);
      expect(journal.recent(id)).toEqual(want);
      expect(journal.recent(id, 7)).toEqual(want.slice(-7));
    }
    // ...each exactly the object acknowledged (same fields in the same order).
    expect(JSON.stringify(journal.recent('t3', 10))).toBe(
      JSON.stringify(last.filter((r) => r.terminalId === 't3')),
    );
    expect(journal.recent('t99')).toEqual([]);
    await journal.close();
  });

  it('answers the same after it is opened again', async () => {
    const first = new Journal({ dataDir: dir, fsync: false });
    for (let i = 0; i < 40; i++) void first.append(state(i % 2 ? 't1' : 't2', i));
    await first.flush();
    const kept = first.recent('t1');
    await first.close();
    const again = new Journal({ dataDir: dir, fsync: false });
    expect(again.recent('t1')).toEqual(kept);
    expect(again.recent('t1')).toHaveLength(20);
    await again.append(state('t1', 99));
    expect(again.recent('t1', 2).map((r) => (r as { t: number }).t)).toEqual([39, 99]);
    await again.close();
  });
});
