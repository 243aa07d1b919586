/**
 * What lets a publish be skipped (src/terminal/drivers.ts): the same times but for the clock,
 * and the stability flag a state composed now would have. A wrong "the same" would hide a
 * change; a wrong "different" only costs a composed state.
 */
import { describe, expect, it } from 'vitest';
import { sameTimes, stableAt, type StateTimes } from '../../src/terminal/state.js';

const TIMES: StateTimes = {
  now: 100,
  readinessSince: 10,
  phaseSince: 20,
  surfaceSince: 30,
  stateSince: 40,
  stabilitySeconds: 5,
};

describe('sameTimes', () => {
  it('ignores the clock, and tells each other field apart', () => {
    expect(sameTimes(TIMES, { ...TIMES })).toBe(true);
    expect(sameTimes(TIMES, { ...TIMES, now: 101 })).toBe(true);
    const fields = [
      'readinessSince',
      'phaseSince',
      'surfaceSince',
      'stateSince',
      'stabilitySeconds',
    ] as const;
    for (const k of fields) {
      const moved = { ...TIMES, [k]: (TIMES[k] ?? 0) + 1 };
      expect(sameTimes(TIMES, moved), k).toBe(false);
      expect(sameTimes(moved, TIMES), k).toBe(false);
    }
    expect(sameTimes(TIMES, { ...TIMES, readinessSince: null })).toBe(false);
  });
});

describe('stableAt', () => {
  it('stable once the surface and the state stood still for the stability window', () => {
    // Since the later of the surface's and the state's last change (40): stable from 45.
    expect(stableAt({ ...TIMES, now: 44.99 })).toBe(false);
    expect(stableAt({ ...TIMES, now: 45 })).toBe(true);
    expect(stableAt({ ...TIMES, now: 45, stateSince: 41 })).toBe(false);
    expect(stableAt({ ...TIMES, now: 36, stateSince: null })).toBe(true);
    expect(stableAt({ ...TIMES, now: 34.99, stateSince: null })).toBe(false);
    // A surface never read is never stable, however long ago the state changed.
    expect(stableAt({ ...TIMES, now: 1000, surfaceSince: null })).toBe(false);
  });
});
