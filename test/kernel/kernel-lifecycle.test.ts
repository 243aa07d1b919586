/**
 * The kernel's lifecycle around its charts and timers: where the chart actors live (the
 * standalone host, or a host it is given), which turn a completion actor belongs to, who owns
 * and disposes the timers, the scheduler's origin, and a finished or replaced turn staying out
 * of the way.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Actor } from 'xstate';
import { completionMachine } from '../../machines/completion.js';
import { readinessMachine } from '../../machines/readiness.js';
import { Kernel, standaloneHost, type ChartHost } from '../../src/kernel/kernel.js';
import { Timers } from '../../src/kernel/timers.js';
import type { SurfaceObservation } from '../../machines/surface.js';
import { ManualScheduler } from './internal/manual-scheduler.js';
import { UNKNOWN, kernelOnVirtualTime } from './internal/kernel-fixture.js';

const SURFACE: SurfaceObservation = {
  availability: 'supported',
  businessState: 'idle',
  inputMode: 'freeform',
  uiContext: 'normal_prompt',
  projectionText: 'baseline',
  baselineInvalidated: false,
};
const at = (o: Partial<SurfaceObservation>): SurfaceObservation => ({ ...SURFACE, ...o });
const obs = (observation: SurfaceObservation) => ({ type: 'observation' as const, observation });
const REPLY = at({ projectionText: 'baseline\nreply' });

const INPUT = {
  stalledIsTerminal: false,
  stallTimeoutSeconds: 5,
  stallMode: 'continuous' as const,
  stabilitySeconds: 1,
};

/** A host that keeps every actor it made (and never stops them itself) and logs its calls. */
function recordingHost() {
  const inner = standaloneHost();
  const calls: string[] = [];
  const completions = new Map<string, ReturnType<ChartHost['completion']>>();
  const host: ChartHost = {
    hub: inner.hub,
    readiness: (input) => inner.readiness(input),
    completion: (turnId, input) => {
      calls.push(`completion ${turnId} ${input.baseline}`);
      const actor = inner.completion(turnId, input);
      completions.set(turnId, actor);
      return actor;
    },
    stopCompletion: (turnId) => calls.push(`stop ${turnId}`),
    dispose: () => calls.push('dispose'),
  };
  return { host, calls, completions };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('standaloneHost', () => {
  it("runs the charts as a terminal actor's children: a new turn stops the last, stopping a turn stops only that turn, dispose stops the rest", () => {
    const host = standaloneHost();
    const readiness = host.readiness(INPUT);
    const parent = (readiness as unknown as { _parent?: { id: string } })._parent;
    expect(parent?.id).toBe('kernel');
    const one = host.completion('turn-1', { ...INPUT, baseline: 'a' });
    expect((one as unknown as { _parent?: unknown })._parent).toBe(parent);
    const two = host.completion('turn-2', { ...INPUT, baseline: 'b' });
    expect(one.getSnapshot().status).toBe('stopped');
    host.stopCompletion('turn-1');
    expect(two.getSnapshot().status).toBe('active');
    expect(readiness.getSnapshot().status).toBe('active');
    host.dispose?.();
    expect(two.getSnapshot().status).toBe('stopped');
    expect(readiness.getSnapshot().status).toBe('stopped');
  });

  it('a turn is only ever a completion actor, whatever its id', () => {
    const host = standaloneHost();
    const readiness = host.readiness(INPUT);
    const turn = host.completion('readiness', { ...INPUT, baseline: 'a' });
    host.stopCompletion('readiness');
    expect(turn.getSnapshot().status).toBe('stopped');
    expect(readiness.getSnapshot().status).toBe('active');
    host.stopCompletion('never-made');
    expect(readiness.getSnapshot().status).toBe('active');
    host.dispose?.();
    expect(readiness.getSnapshot().status).toBe('stopped');
  });

  it('disposing is harmless when it has no readiness chart, or twice', () => {
    const host = standaloneHost();
    const turn = host.completion('turn-1', { ...INPUT, baseline: 'a' });
    host.dispose?.();
    expect(turn.getSnapshot().status).toBe('stopped');
    host.readiness(INPUT);
    host.dispose?.();
    expect(() => host.dispose?.()).not.toThrow();
  });

  it('takes the charts it is given in place of the real ones', () => {
    const submitReady = obs(SURFACE);
    const working = obs(at({ businessState: 'working', inputMode: 'closed' }));
    const real = standaloneHost();
    const readiness = real.readiness(INPUT);
    readiness.send(submitReady);
    expect(readiness.getSnapshot().value).toBe('ready');
    const turn = real.completion('t', { ...INPUT, baseline: '' });
    turn.send(working);
    expect(turn.getSnapshot().value).toBe('in_progress');

    const host = standaloneHost(undefined, {
      readiness: readinessMachine.provide({ guards: { submit_ready: () => false } }),
      completion: completionMachine.provide({ guards: { working: () => false } }),
    });
    const other = host.readiness(INPUT);
    other.send(submitReady);
    expect(other.getSnapshot().value).toBe('waiting');
    const otherTurn = host.completion('t', { ...INPUT, baseline: '' });
    otherTurn.send(working);
    expect(otherTurn.getSnapshot().value).toBe('waiting');
  });
});

describe('Kernel: turns on a host', () => {
  it('names turns turn-1, turn-2, … and stops the previous turn by its id', () => {
    const { host, calls } = recordingHost();
    const k = new Kernel({ host, scheduler: new ManualScheduler() });
    expect(k.submit(0, 'first')).toBe(1);
    expect(k.submit(1, 'second')).toBe(2);
    expect(k.submit(2, 'third', 'explicit-id')).toBe(3);
    k.dispose();
    expect(calls).toEqual([
      'completion turn-1 first',
      'stop turn-1',
      'completion turn-2 second',
      'stop turn-2',
      'completion explicit-id third',
      'stop explicit-id',
    ]);
  });

  it('hands the configured timing to each chart', () => {
    const { host, completions } = recordingHost();
    const config = { stallTimeoutSeconds: 7, stabilitySeconds: 2, stallMode: 'gap' as const };
    const k = new Kernel({ host, config: { ...config, stalledIsTerminal: true } });
    k.submit(0, 'b');
    expect(completions.get('turn-1')?.getSnapshot().context).toMatchObject({
      ...config,
      stalledIsTerminal: true,
    });
    k.dispose();
  });

  it('a replaced turn whose actor runs on no longer reaches the timers or the records', () => {
    const { host, completions } = recordingHost();
    const scheduler = new ManualScheduler();
    const k = new Kernel({ host, scheduler, config: { stallTimeoutSeconds: 5 } });
    const records: unknown[] = [];
    k.records$.subscribe((r) => records.push(r));
    k.submit(0, 'baseline');
    k.submit(1, 'baseline');
    const old = completions.get('turn-1')!;
    old.send({ type: 'observation', observation: UNKNOWN_SURFACE });
    old.send({ type: 'observation', observation: REPLY });
    expect(k.timers.has('completion.1.stall')).toBe(false);
    expect(k.timers.has('completion.1.stability')).toBe(false);
    expect(records).toEqual([]);
    k.dispose();
  });

  it('disposing leaves a host it was given to its owner, but stops the running turn', () => {
    const { host, calls } = recordingHost();
    const k = new Kernel({ host });
    k.submit(0, 'b');
    k.dispose();
    expect(calls).toEqual(['completion turn-1 b', 'stop turn-1']);
  });

  it('disposing stops the charts of the host it made itself', () => {
    const stop = vi.spyOn(Actor.prototype, 'stop');
    const k = new Kernel({ scheduler: new ManualScheduler() });
    k.submit(0, 'b');
    const before = stop.mock.calls.length;
    k.dispose();
    // The terminal actor the charts are children of (a child stops with its parent).
    const stopped = stop.mock.contexts.slice(before) as Array<{ logic: { id: string } }>;
    expect(stopped.map((a) => a.logic.id)).toContain('terminal');
  });

  it('disposing completes the record stream', () => {
    const k = new Kernel({ scheduler: new ManualScheduler() });
    let complete = false;
    k.records$.subscribe({ complete: () => (complete = true) });
    k.dispose();
    expect(complete).toBe(true);
  });
});

const UNKNOWN_SURFACE = at(UNKNOWN);

describe('Kernel: timers', () => {
  it('scheduler time originMs is observation time 0', () => {
    const scheduler = new ManualScheduler();
    scheduler.ms = 10_000;
    const k = new Kernel({ scheduler, originMs: 10_000, config: { stallTimeoutSeconds: 5 } });
    k.observe(0, UNKNOWN_SURFACE);
    expect(scheduler.pending).toEqual([15_000]);
    scheduler.runNext(15_000);
    expect(k.snapshot().readiness).toBe('stalled');
    k.dispose();
  });

  it('owns and disposes its timers when not given any', () => {
    const scheduler = new ManualScheduler();
    const k = new Kernel({ scheduler });
    k.observe(0, UNKNOWN_SURFACE);
    expect(scheduler.pending).toHaveLength(1);
    k.dispose();
    expect(scheduler.pending).toEqual([]);
  });

  it('its own timers go with it, with whatever else was set on them', () => {
    const scheduler = new ManualScheduler();
    const k = new Kernel({ scheduler });
    const heard: number[] = [];
    k.timers.onFired((due) => heard.push(due));
    k.timers.set('extra', 3, 5, () => heard.push(-1));
    k.dispose();
    expect(k.timers.has('extra')).toBe(false);
    expect(scheduler.pending).toEqual([]);
    k.timers.set('later', 4, 5, () => undefined);
    k.timers.advanceTo(4);
    expect(heard).toEqual([]);
  });

  it('shared timers stay with their owner: dispose only clears the kernel’s own', () => {
    const scheduler = new ManualScheduler();
    const timers = new Timers(scheduler);
    const fired: number[] = [];
    timers.set('someone-else', 100, 5, (t) => fired.push(t));
    const k = new Kernel({ timers, config: { stallTimeoutSeconds: 5 } });
    expect(k.timers).toBe(timers);
    k.submit(0, 'b');
    k.observe(0, UNKNOWN_SURFACE);
    expect(timers.has('readiness.stall')).toBe(true);
    expect(timers.has('completion.1.stall')).toBe(true);
    k.dispose();
    expect(timers.has('readiness.stall')).toBe(false);
    expect(timers.has('completion.1.stall')).toBe(false);
    timers.advanceTo(100);
    expect(fired).toEqual([100]);
  });
});

describe('Kernel: completion observer answers', () => {
  it('no answer (undefined or null) leaves the candidate to its stability window', () => {
    for (const answer of [undefined, null]) {
      const k = kernelOnVirtualTime({ config: { stabilitySeconds: 1 }, observer: () => answer });
      k.submit(0);
      k.observe(1, { projectionText: 'baseline\nreply' });
      k.observe(1.5, { projectionText: 'baseline\nreply' });
      expect(k.kernel.snapshot().completion).toMatchObject({
        status: 'candidate_complete',
        payload: null,
      });
      k.at(2);
      expect(k.of('completion').at(-1)).toMatchObject({
        to: 'completed',
        event: 'evt_stability_window_elapsed',
      });
    }
  });

  it('a payload completes at once; the record says how long the candidate had stood', () => {
    let answer: unknown = null;
    const k = kernelOnVirtualTime({ config: { stabilitySeconds: 5 }, observer: () => answer });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    answer = { sentinel: true };
    k.observe(2.5, { projectionText: 'baseline\nreply' });
    expect(k.of('completion').at(-1)).toEqual({
      t: 2.5,
      machine: 'completion',
      turn: 1,
      from: 'candidate_complete',
      to: 'completed',
      event: 'evt_completion_observer_payload',
      candidateElapsedSeconds: 1.5,
    });
    expect(k.kernel.snapshot().completion?.payload).toEqual({ sentinel: true });
  });

  it('is asked with the observation and the turn’s evidence', () => {
    const asked: unknown[] = [];
    const k = kernelOnVirtualTime({
      observer: (o, evidence) => {
        asked.push({ text: o.projectionText, evidence });
        return null;
      },
    });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    expect(asked).toEqual([
      {
        text: 'baseline\nreply',
        evidence: expect.objectContaining({ sawProjectionChange: true, sawWorking: false }),
      },
    ]);
  });

  it('is asked on every observation once the turn has evidence, not before; only a candidate completes on an answer', () => {
    const asked: Array<{ text: string; state: string }> = [];
    const k = kernelOnVirtualTime({
      config: { stabilitySeconds: 5 },
      observer: (o) => {
        asked.push({ text: o.projectionText, state: o.businessState });
        return { sentinel: true };
      },
    });
    k.submit(0);
    // The surface before the agent started: no evidence, not asked.
    k.observe(0.5, { projectionText: 'baseline' });
    expect(asked).toEqual([]);
    // Working: evidence, asked, but a turn in progress does not complete on an answer.
    k.observe(1, { businessState: 'working', inputMode: 'closed', projectionText: 'baseline' });
    expect(asked).toEqual([{ text: 'baseline', state: 'working' }]);
    expect(k.kernel.snapshot().completion?.status).toBe('in_progress');
    // Finished: a candidate, asked again, and the answer completes it at once.
    k.observe(2, { projectionText: 'baseline\nreply' });
    expect(asked).toHaveLength(2);
    expect(k.kernel.snapshot().completion).toMatchObject({
      status: 'completed',
      payload: { sentinel: true },
    });
  });

  it('a failed turn is not asked about later observations', () => {
    let asked = 0;
    const k = kernelOnVirtualTime({
      config: { stabilitySeconds: 5 },
      observer: () => {
        asked += 1;
        return null;
      },
    });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    expect(asked).toBe(1);
    k.observe(2, { availability: 'disconnected' });
    expect(k.kernel.snapshot().completion?.status).toBe('failed');
    const askedBefore = asked;
    for (let t = 3; t < 6; t += 1) k.observe(t, { projectionText: `baseline\nreply ${t}` });
    expect(asked).toBe(askedBefore);
  });

  it('a finished turn takes further observations quietly, and is not asked about them', () => {
    const warn = vi.spyOn(console, 'warn');
    let asked = 0;
    const k = kernelOnVirtualTime({
      config: { stabilitySeconds: 1 },
      observer: () => {
        asked += 1;
        return null;
      },
    });
    k.submit(0);
    k.observe(1, { projectionText: 'baseline\nreply' });
    k.at(2);
    expect(k.kernel.snapshot().completion?.status).toBe('completed');
    const records = k.records.length;
    const askedBefore = asked;
    for (let t = 3; t < 6; t += 1) k.observe(t, { businessState: 'working', inputMode: 'closed' });
    expect(k.of('completion')).toHaveLength(2);
    expect(k.records.length).toBe(records + 1); // readiness: ready → waiting
    expect(asked).toBe(askedBefore);
    expect(warn).not.toHaveBeenCalled();
  });
});
