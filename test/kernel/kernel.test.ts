import { describe, expect, it } from 'vitest';
import { BLOCKED, UNKNOWN, WORKING, kernelOnVirtualTime } from './internal/kernel-fixture.js';

describe('Kernel: stall timer', () => {
  it('continuous: a continuously polled unknown surface stalls at first-unknown + timeout', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    for (let t = 0; t <= 20; t += 0.5) k.observe(t, UNKNOWN);
    expect(k.of('readiness')).toMatchObject([
      { t: 0, to: 'unknown' },
      { t: 5, from: 'unknown', to: 'stalled', unknownElapsedSeconds: 5 },
    ]);
  });

  it('gap: the same polled surface never stalls; only a silence of the timeout does', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5, stallMode: 'gap' } });
    for (let t = 0; t <= 20; t += 0.5) k.observe(t, UNKNOWN);
    expect(k.kernel.snapshot().readiness).toBe('unknown');
    k.at(24.9);
    expect(k.kernel.snapshot().readiness).toBe('unknown');
    k.at(25);
    expect(k.of('readiness').at(-1)).toMatchObject({
      t: 25,
      to: 'stalled',
      unknownElapsedSeconds: 25,
    });
  });

  it('a hung probe still stalls: one unknown observation, then only the clock moves', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 30 } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    // Only the scheduler runs: no observation, no kernel.advance.
    k.clock.advanceTo(31);
    expect(k.kernel.snapshot()).toMatchObject({
      readiness: 'stalled',
      completion: { status: 'stalled' },
    });
    expect(k.anomalies()).toMatchObject([
      { t: 31, anomaly: 'stalled_entered', phase: 'readiness', elapsedUnknownSeconds: 30 },
      { t: 31, anomaly: 'stalled_entered', phase: 'completion', elapsedUnknownSeconds: 30 },
    ]);
  });

  it('a known observation cancels the stall; a new unknown run starts a new deadline', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.observe(0, UNKNOWN);
    k.observe(4, WORKING);
    k.observe(6, UNKNOWN);
    k.at(10.9);
    expect(k.kernel.snapshot().readiness).toBe('unknown');
    k.at(11);
    expect(k.of('readiness').at(-1)).toMatchObject({ t: 11, unknownElapsedSeconds: 5 });
  });

  it('inputMode unknown with a known business state never stalls', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.observe(0, { businessState: 'working', inputMode: 'unknown' });
    k.at(60);
    expect(k.records).toEqual([]);
    expect(k.kernel.snapshot().readiness).toBe('waiting');
  });

  it('anomalies carry real durations: elapsedStalledSeconds is the time spent stalled', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5 } });
    k.submit(0);
    k.observe(0, UNKNOWN);
    k.at(9);
    k.observe(12.25, BLOCKED);
    expect(k.of('readiness').at(-1)).toMatchObject({
      t: 12.25,
      from: 'stalled',
      to: 'blocked',
      event: 'evt_stalled_recovered_to_blocked',
      elapsedStalledSeconds: 7.25,
    });
    const recovered = k.anomalies().filter((a) => a.anomaly === 'stalled_recovered');
    expect(recovered).toMatchObject([
      { phase: 'readiness', elapsedStalledSeconds: 7.25, recoveredTo: 'blocked' },
      { phase: 'completion', elapsedStalledSeconds: 7.25, recoveredTo: 'blocked' },
    ]);
  });

  it('stalledIsTerminal: readiness and completion fail with "event":"stalled_is_terminal"', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 2, stalledIsTerminal: true } });
    k.submit(0);
    k.observe(1, UNKNOWN);
    k.at(3);
    for (const machine of ['readiness', 'completion']) {
      expect(k.of(machine).slice(-2)).toMatchObject([
        { t: 3, from: 'unknown', to: 'stalled', event: 'evt_unknown_timeout' },
        { t: 3, from: 'stalled', to: 'failed', event: 'stalled_is_terminal' },
      ]);
    }
    const line = JSON.stringify(k.of('completion').at(-1));
    expect(line).toContain('"event":"stalled_is_terminal"');
    expect(k.kernel.snapshot()).toMatchObject({
      readiness: 'failed',
      completion: { status: 'failed' },
    });
  });

  it('without stalledIsTerminal, stalled stays stalled', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 2 } });
    k.observe(1, UNKNOWN);
    k.at(100);
    expect(k.kernel.snapshot().readiness).toBe('stalled');
  });
});

describe('Kernel: stability window', () => {
  it('identical candidate observations do not move it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0);
    k.observe(0.5, WORKING);
    for (const t of [1, 1.25, 1.5, 1.75]) k.observe(t, { projectionText: 'baseline\nreply' });
    k.at(2);
    expect(k.of('completion').at(-1)).toMatchObject({
      t: 2,
      to: 'completed',
      event: 'evt_stability_window_elapsed',
      candidateElapsedSeconds: 1,
    });
  });

  it('a new candidate signature restarts it', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    k.observe(1.5, { projectionText: 'baseline\nreply\nmore' });
    k.at(2.4);
    expect(k.kernel.snapshot().completion?.status).toBe('candidate_complete');
    k.at(2.5);
    expect(k.of('completion').at(-1)).toMatchObject({ t: 2.5, candidateElapsedSeconds: 1 });
  });

  it('a non-candidate observation cancels it (signature changed → waiting)', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    k.observe(1.5, {
      businessState: 'idle',
      inputMode: 'modal',
      projectionText: 'baseline\nreply',
    });
    k.at(10);
    expect(k.of('completion').map((r) => 'event' in r && r.event)).toEqual([
      'evt_submit_ready_with_activity',
      'evt_state_signature_changed',
    ]);
  });

  it('a candidate that left and came back with the same signature starts a new window', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0);
    k.observe(0.5, WORKING);
    k.observe(1, { projectionText: 'baseline\nreply' });
    k.observe(1.5, WORKING);
    k.observe(1.8, { projectionText: 'baseline\nreply' });
    // The first window (due at 2) was cancelled when the candidate left.
    k.at(2.7);
    expect(k.kernel.snapshot().completion?.status).toBe('candidate_complete');
    k.at(2.8);
    expect(k.of('completion').at(-1)).toMatchObject({
      t: 2.8,
      to: 'completed',
      candidateElapsedSeconds: expect.closeTo(1, 9),
    });
  });

  it('a submit-ready surface without evidence never completes', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0, 'the screen  \n');
    for (let t = 0; t < 10; t += 1) k.observe(t, { projectionText: '\nthe screen' });
    k.at(100);
    expect(k.kernel.snapshot().completion?.status).toBe('waiting');
  });
});

describe('Kernel: completion observer', () => {
  const always = () => ({ done: true });

  it('completes a candidate at once with the payload', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 5 }, observer: always });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    expect(k.kernel.snapshot().completion).toMatchObject({
      status: 'completed',
      payload: { done: true },
    });
    expect(k.of('completion').at(-1)).toMatchObject({
      t: 1,
      from: 'candidate_complete',
      to: 'completed',
      event: 'evt_completion_observer_payload',
    });
  });

  it('never overrides blocked', () => {
    const k = kernelOnVirtualTime({ observer: always });
    k.submit(0);
    k.observe(1, WORKING);
    k.observe(2, { ...BLOCKED, projectionText: 'baseline\nreply' });
    expect(k.kernel.snapshot().completion).toMatchObject({ status: 'blocked', payload: null });
  });

  it('does not complete a turn that is only in progress, nor failed', () => {
    const k = kernelOnVirtualTime({ observer: always });
    k.submit(0);
    k.observe(1, { ...WORKING, projectionText: 'baseline\nreply' });
    expect(k.kernel.snapshot().completion?.status).toBe('in_progress');
    k.observe(2, { availability: 'disconnected' });
    expect(k.kernel.snapshot().completion).toMatchObject({ status: 'failed', payload: null });
  });

  it('is not called before the turn has evidence', () => {
    const seen: number[] = [];
    const k = kernelOnVirtualTime({
      observer: () => {
        seen.push(1);
        return null;
      },
    });
    k.submit(0);
    k.observe(1);
    k.observe(2);
    expect(seen).toEqual([]);
    k.observe(3, { projectionText: 'baseline\nreply' });
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe('Kernel: turns', () => {
  it('a new submit stops the previous turn: its timers no longer fire', () => {
    const k = kernelOnVirtualTime({ config: { stallTimeoutSeconds: 5, stabilitySeconds: 1 } });
    expect(k.submit(0)).toBe(1);
    k.observe(1, UNKNOWN);
    expect(k.submit(2, 'second')).toBe(2);
    k.at(20);
    expect(k.of('completion', 1).map((r) => 'to' in r && r.to)).toEqual(['unknown']);
    expect(k.kernel.snapshot().completion).toMatchObject({ turn: 2, status: 'waiting' });
    expect(k.kernel.snapshot().turns).toBe(2);
  });

  it('a new submit stops a candidate turn before its stability window elapses', () => {
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 } });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    k.submit(1.5, 'baseline\nreply');
    k.at(5);
    expect(k.of('completion', 1).map((r) => 'to' in r && r.to)).toEqual(['candidate_complete']);
    expect(k.of('completion', 2)).toEqual([]);
  });

  it('readiness is updated before completion for the same observation', () => {
    const k = kernelOnVirtualTime();
    k.submit(0);
    k.observe(1, BLOCKED);
    expect(k.records.map((r) => 'machine' in r && r.machine)).toEqual(['readiness', 'completion']);
  });

  it('rejects time going backwards', () => {
    const k = kernelOnVirtualTime();
    k.observe(5);
    expect(() => k.kernel.advance(4)).toThrow(RangeError);
  });
});
