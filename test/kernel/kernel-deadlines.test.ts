/**
 * The kernel's deadlines as they stand on its timers (statecharts.md §3), which a terminal
 * shares with its other timers: the stall deadline and the stability window are armed, kept,
 * restarted and cancelled by the rules, under keys of their own (`readiness.stall`,
 * `completion.<turn>.stall`, `completion.<turn>.stability`). A deadline left behind would wake
 * the terminal for nothing; a stale one would fire into a chart that moved on.
 */
import { describe, expect, it } from 'vitest';
import { BLOCKED, UNKNOWN, WORKING, kernelOnVirtualTime } from './internal/kernel-fixture.js';

const REPLY = { projectionText: 'baseline\nreply' };

describe('stall deadline', () => {
  it('continuous: set at the first unknown observation, not moved by the next ones', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    expect(k.kernel.timers.due('readiness.stall')).toBe(6);
    expect(k.kernel.timers.due('completion.1.stall')).toBe(6);
    k.observe(2, UNKNOWN);
    expect(k.kernel.timers.due('readiness.stall')).toBe(6);
    expect(k.kernel.timers.due('completion.1.stall')).toBe(6);
  });

  it('gap: every unknown observation re-arms it', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5, stallMode: 'gap' } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    k.observe(2.5, UNKNOWN);
    expect(k.kernel.timers.due('readiness.stall')).toBe(7.5);
    expect(k.kernel.timers.due('completion.1.stall')).toBe(7.5);
  });

  it('any known observation cancels it', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    k.observe(2, WORKING);
    expect(k.kernel.timers.has('readiness.stall')).toBe(false);
    expect(k.kernel.timers.has('completion.1.stall')).toBe(false);
  });

  it('a blocked surface cancels it too, and nothing fires later', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    k.observe(2, BLOCKED);
    expect(k.kernel.timers.has('readiness.stall')).toBe(false);
    expect(k.kernel.timers.has('completion.1.stall')).toBe(false);
    const before = k.records.length;
    k.at(60);
    expect(k.records).toHaveLength(before);
  });
});

describe('stability window', () => {
  it('armed at the first candidate observation for stabilitySeconds; identical ones do not move it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 2 } });
    k.submit(0);
    k.observe(1, REPLY);
    expect(k.kernel.timers.due('completion.1.stability')).toBe(3);
    k.observe(1.5, REPLY);
    expect(k.kernel.timers.due('completion.1.stability')).toBe(3);
  });

  it('a new candidate signature restarts it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 2 } });
    k.submit(0);
    k.observe(1, REPLY);
    k.observe(1.5, { projectionText: 'baseline\nreply, longer' });
    expect(k.kernel.timers.due('completion.1.stability')).toBe(3.5);
  });

  it('a non-candidate classification cancels it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 2 } });
    k.submit(0);
    k.observe(1, REPLY);
    k.observe(1.5, WORKING);
    expect(k.kernel.timers.has('completion.1.stability')).toBe(false);
  });

  it('elapsing ends the turn and leaves no deadline of it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 2, stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(1, REPLY);
    k.at(3);
    expect(k.kernel.snapshot().completion?.status).toBe('completed');
    expect(k.kernel.timers.has('completion.1.stability')).toBe(false);
    expect(k.kernel.timers.has('completion.1.stall')).toBe(false);
  });

  it('each turn keeps its deadlines under its own number', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 2 } });
    k.submit(0);
    k.submit(1, 'second');
    k.observe(2, { projectionText: 'second\nreply' });
    expect(k.kernel.timers.due('completion.2.stability')).toBe(4);
    expect(k.kernel.timers.has('completion.1.stability')).toBe(false);
  });
});

describe('records', () => {
  it('readiness records carry no turn; completion records carry theirs', () => {
    const k = kernelOnVirtualTime();
    k.submit(0);
    k.observe(1, BLOCKED);
    const [readiness, completion] = k.records;
    expect(readiness).toMatchObject({ machine: 'readiness', to: 'blocked' });
    expect(readiness).not.toHaveProperty('turn');
    expect(completion).toHaveProperty('turn', 1);
  });

  it('a transition an observation caused names the guard that classified it', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    expect(k.records).toEqual([
      {
        t: 1,
        machine: 'readiness',
        from: 'waiting',
        to: 'unknown',
        event: 'evt_unknown_for_stall',
        rule: 'unknown_for_stall',
      },
      {
        t: 1,
        machine: 'completion',
        turn: 1,
        from: 'waiting',
        to: 'unknown',
        event: 'evt_unknown_for_stall',
        rule: 'unknown_for_stall',
      },
    ]);
  });

  it('a timer’s transition has no classifying rule', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.observe(1, UNKNOWN);
    k.at(6);
    const stalled = k.of('readiness').at(-1);
    expect(stalled).toMatchObject({ to: 'stalled', event: 'evt_unknown_timeout' });
    expect(stalled).not.toHaveProperty('rule');
  });

  it('elapsed values measure the unknown run and the stall, across several runs', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 2 } });
    k.observe(1, UNKNOWN);
    k.at(3);
    k.observe(4.5, WORKING);
    k.observe(10, UNKNOWN);
    k.observe(11, UNKNOWN);
    k.at(12);
    k.observe(20, { businessState: 'idle', inputMode: 'freeform' });
    expect(k.records).toMatchObject([
      { t: 1, to: 'unknown' },
      { t: 3, to: 'stalled', unknownElapsedSeconds: 2 },
      { t: 3, anomaly: 'stalled_entered', elapsedUnknownSeconds: 2 },
      { t: 4.5, from: 'stalled', to: 'waiting', elapsedStalledSeconds: 1.5 },
      { t: 4.5, anomaly: 'stalled_recovered', elapsedStalledSeconds: 1.5, recoveredTo: 'waiting' },
      { t: 10, from: 'waiting', to: 'unknown' },
      { t: 12, to: 'stalled', unknownElapsedSeconds: 2 },
      { t: 12, anomaly: 'stalled_entered', elapsedUnknownSeconds: 2 },
      { t: 20, from: 'stalled', to: 'ready', elapsedStalledSeconds: 8 },
      { t: 20, anomaly: 'stalled_recovered', elapsedStalledSeconds: 8, recoveredTo: 'ready' },
    ]);
    expect(k.records).toHaveLength(10);
    for (const r of k.records.filter((r) => 'to' in r && r.to !== 'stalled')) {
      expect(r).not.toHaveProperty('unknownElapsedSeconds');
    }
  });

  it('time never goes backwards: the error names both times', () => {
    const k = kernelOnVirtualTime();
    k.observe(5);
    expect(() => k.kernel.advance(4)).toThrow('time went backwards: 4 < 5');
    expect(() => k.observe(4.5)).toThrow(RangeError);
  });
});
