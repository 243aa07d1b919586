import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../scripts/internal/scale-measure.js';
import { Journal } from '../../src/journal/journal.js';

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
