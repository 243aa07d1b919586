import { describe, expect, it } from 'vitest';
import {
  pickSession as pickSessionEntry,
  processStarts,
  sessionsSince,
} from '../../../src/profiles/record-files.js';
import { contextFromProc } from './proc-context.js';

const s = (file: string, startedAtMs: number) => ({ file, startedAtMs });
const pickSession = (...args: Parameters<typeof pickSessionEntry>) =>
  pickSessionEntry(...args)?.file ?? null;

describe('pickSession', () => {
  const sessions = [s('a', 1_000), s('b', 5_000), s('c', 9_000)];
  const context = (startedAtMs: number, claimed: string[] = []) => ({
    startedAtMs,
    claimed: new Set(claimed),
  });

  it('gives each session to the process that started last before it', () => {
    // Two panes: one started at 0 (its session a), one at 4000 (its sessions b, then c).
    const all = [0, 4_000];
    expect(pickSession(sessions, context(0), { self: 0, all })).toBe('a');
    expect(pickSession(sessions, context(4_000), { self: 4_000, all })).toBe('c');
    expect(pickSession(sessions, context(4_000, ['c']), { self: 4_000, all })).toBe('b');
    // Two panes started at once: both sessions begin after the second pane's start, in order.
    const together = [s('x', 3_000), s('y', 3_300)];
    expect(pickSession(together, context(0), { self: 0, all: [0, 500] })).toBe('x');
    expect(pickSession(together, context(500), { self: 500, all: [0, 500] })).toBe('y');
    // A claimed session keeps its place: the other pane does not get it, nor the next one.
    expect(pickSession(together, context(0, ['x']), { self: 0, all: [0, 500] })).toBeNull();
    // A pane started after every session has none yet.
    expect(pickSession(sessions, context(9_500), { self: 9_500, all: [...all, 9_500] })).toBeNull();
  });

  it('without process starts, takes the earliest unclaimed session started after the process', () => {
    expect(pickSession(sessions, context(0), null)).toBe('a');
    expect(pickSession(sessions, context(0, ['a']), null)).toBe('b');
    expect(pickSession(sessions, context(4_500), null)).toBe('b');
    expect(pickSession(sessions, context(20_000), null)).toBeNull();
  });
});

describe('sessionsSince', () => {
  it('reaches back to the earliest process like this one, so its sessions keep their place', () => {
    // The second pane started 2.5 s after the first, whose session began 1.4 s before that: the
    // first pane's session must still be seen when the second pane looks, or it takes the
    // second pane's place.
    expect(sessionsSince({ startedAtMs: 2_500 }, { self: 2_500, all: [0, 2_500] })).toBe(-1_000);
    expect(sessionsSince({ startedAtMs: 2_500 }, null)).toBe(1_500);
  });
});

describe('processStarts', () => {
  it('finds this process among the processes like it, with its start from /proc', async () => {
    const context = await contextFromProc(process.pid);
    const starts = await processStarts(context);
    expect(starts).not.toBeNull();
    expect(starts!.all).toContain(starts!.self);
    expect(Math.abs(starts!.self - context.startedAtMs)).toBeLessThan(20);
    expect(starts!.self).toBeLessThanOrEqual(Date.now());
  });

  it('is null for a process /proc does not show', async () => {
    expect(await processStarts({ pid: 2 ** 30, cwd: '/', env: {} })).toBeNull();
  });
});
