import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, type RecordGap } from '../../src/journal/journal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-journal-format-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the journal on disk', () => {
  it('writes the same bytes as before its split: segments, checkpoints, retention', async () => {
    // A fixed clock and small segments: 120 records rotate into checkpoints and the oldest
    // segments are dropped. The digest was taken from the journal before it was split by concern.
    const scheduler = new VirtualTimeScheduler();
    const j = new Journal({
      dataDir: dir,
      scheduler,
      segmentBytes: 2000,
      retainSegments: 3,
      fsync: false,
    });
    for (let i = 0; i < 120; i++) {
      await j.append({
        kind: 'terminal.attached',
        terminalId: `t${i % 5}`,
        target: `%${i}`,
        tool: 'claude_code',
        toolVersion: null,
        watchdogBudgetSeconds: 0,
        readopted: false,
      });
    }
    await j.close();
    const files = readdirSync(join(dir, 'journal')).sort();
    expect(files).toEqual([
      'segment-000000000123.jsonl',
      'segment-000000000130.jsonl',
      'segment-000000000137.jsonl',
    ]);
    const h = createHash('sha256');
    for (const f of files) {
      h.update(f);
      h.update(readFileSync(join(dir, 'journal', f)));
    }
    // Since turn ids count per terminal, checkpoints also carry each terminal's next number
    // (`turns`, `turnFloor`); the records themselves are written as before.
    expect(h.digest('hex')).toBe(
      '6517fc79b22a653cd5df7f334c0d4500c6fcb1f83deca00d248d950c3b7ef1a2',
    );

    const again = new Journal({ dataDir: dir, scheduler });
    const gaps: RecordGap[] = [];
    const page = again.readAfter(0, { onGap: (g) => gaps.push(g) });
    expect(page.map((r) => r.seq)).toEqual(Array.from({ length: 17 }, (_, i) => 123 + i));
    expect(gaps).toEqual([{ from: 1, to: 122, reason: 'retention' }]);
    expect(again.lastSeq).toBe(139);
    await again.close();
  });
});
