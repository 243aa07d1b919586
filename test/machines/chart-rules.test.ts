import { describe, expect, it } from 'vitest';
import { createActor, type AnyStateMachine } from 'xstate';
import { completionMachine } from '../../machines/completion.js';
import { readinessMachine } from '../../machines/readiness.js';
import {
  isSubmitReady,
  isUnknownForStall,
  type SurfaceObservation,
} from '../../machines/surface.js';
import { watchdogMachine } from '../../machines/watchdog.js';

const obs = (o: Partial<SurfaceObservation>): SurfaceObservation => ({
  availability: 'supported',
  businessState: 'idle',
  inputMode: 'freeform',
  uiContext: 'x',
  projectionText: '',
  baselineInvalidated: false,
  ...o,
});
const UNKNOWN = obs({ availability: 'unknown' });
const NONREADY = obs({ inputMode: 'closed' });

/** A chart started with `input` (none: its defaults), and every request it emits. */
function started(machine: AnyStateMachine, input?: unknown) {
  const actor = createActor(machine, input === undefined ? {} : { input });
  const emitted: { type: string; [k: string]: unknown }[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  const see = (o: SurfaceObservation) => actor.send({ type: 'observation', observation: o });
  return { actor, emitted, see, value: () => String(actor.getSnapshot().value) };
}

describe('defaults of a chart started without input (statecharts.md §3)', () => {
  it('readiness: a 30 s stall, continuous, and a stalled surface is not failed', () => {
    const c = started(readinessMachine);
    expect(c.actor.getSnapshot().context).toEqual({
      stalledIsTerminal: false,
      stallTimeoutSeconds: 30,
      stallMode: 'continuous',
    });
    c.see(UNKNOWN);
    expect(c.emitted).toEqual([{ type: 'stall_timer.start', seconds: 30 }]);
    // Continuous: further unknown observations do not move the deadline.
    c.see(UNKNOWN);
    expect(c.emitted).toHaveLength(1);
    c.actor.send({ type: 'evt_unknown_timeout' });
    expect(c.value()).toBe('stalled');
  });

  it('completion: a 30 s stall, continuous, a 1 s stability window, no baseline text', () => {
    const c = started(completionMachine);
    expect(c.actor.getSnapshot().context).toMatchObject({
      stalledIsTerminal: false,
      stallTimeoutSeconds: 30,
      stallMode: 'continuous',
      stabilitySeconds: 1,
    });
    c.see(UNKNOWN);
    c.see(UNKNOWN);
    expect(c.emitted).toEqual([{ type: 'stall_timer.start', seconds: 30 }]);
    c.actor.send({ type: 'evt_unknown_timeout' });
    expect(c.value()).toBe('stalled');
    // The baseline is empty: an empty transcript is no change, any text is one.
    c.see(obs({ projectionText: '' }));
    expect(c.value()).toBe('waiting');
    c.see(obs({ projectionText: 'reply' }));
    expect(c.value()).toBe('candidate_complete');
    expect(c.emitted.at(-1)).toEqual({ type: 'stability_window.start', seconds: 1 });
  });

  it('watchdog: no budget, so a session never arms it', () => {
    const c = started(watchdogMachine);
    expect(c.actor.getSnapshot().context.budgetSeconds).toBe(0);
    c.actor.send({ type: 'evt_session_started', at: 5 });
    expect(c.value()).toBe('disabled');
    expect(c.emitted).toEqual([]);
  });
});

describe('readiness: the stall timer in gap mode', () => {
  it('every unknown observation re-arms it; a disconnected surface still fails', () => {
    const c = started(readinessMachine, { stallMode: 'gap', stallTimeoutSeconds: 4 });
    c.see(UNKNOWN);
    c.see(obs({ availability: 'supported', businessState: 'unknown' }));
    expect(c.emitted).toEqual([
      { type: 'stall_timer.start', seconds: 4 },
      { type: 'stall_timer.start', seconds: 4 },
    ]);
    // Rule 1 before rule 3: disconnected with an unknown business state is no unknown.
    c.see(obs({ availability: 'disconnected', businessState: 'unknown' }));
    expect(c.value()).toBe('failed');
    expect(c.emitted.at(-1)).toEqual({ type: 'stall_timer.cancel' });
  });
});

describe('completion: the stability window (statecharts.md §3)', () => {
  it('armed with the configured seconds on a candidate; a non-candidate cancels it', () => {
    const c = started(completionMachine, { baseline: 'before', stabilitySeconds: 3 });
    c.see(obs({ projectionText: 'reply' }));
    expect(c.value()).toBe('candidate_complete');
    expect(c.emitted).toEqual([{ type: 'stability_window.start', seconds: 3 }]);
    expect(c.actor.getSnapshot().context.windowSignature).not.toBeNull();
    c.see(obs({ projectionText: 'reply', inputMode: 'closed' }));
    expect(c.value()).toBe('waiting');
    expect(c.emitted).toEqual([
      { type: 'stability_window.start', seconds: 3 },
      { type: 'stability_window.cancel' },
    ]);
    // No window runs: none has a signature.
    expect(c.actor.getSnapshot().context.windowSignature).toBeNull();
  });

  it('an identical candidate keeps the window; a new one restarts it', () => {
    const c = started(completionMachine, { baseline: 'before', stabilitySeconds: 3 });
    c.see(obs({ projectionText: 'reply' }));
    c.see(obs({ projectionText: 'reply', uiContext: 'other' }));
    expect(c.emitted).toHaveLength(1);
    c.see(obs({ projectionText: 'reply, longer' }));
    expect(c.value()).toBe('candidate_complete');
    expect(c.emitted).toEqual([
      { type: 'stability_window.start', seconds: 3 },
      { type: 'stability_window.start', seconds: 3 },
    ]);
  });

  it('the observer payload completes the turn and is kept', () => {
    const c = started(completionMachine, { baseline: 'before' });
    c.see(obs({ projectionText: 'reply DONE' }));
    c.actor.send({ type: 'evt_completion_observer_payload', payload: { sentinel: 'DONE' } });
    expect(c.value()).toBe('completed');
    expect(c.actor.getSnapshot().context.payload).toEqual({ sentinel: 'DONE' });
  });

  it('a non-candidate before any candidate arms and cancels nothing', () => {
    const c = started(completionMachine, { baseline: 'before' });
    c.see(NONREADY);
    expect(c.value()).toBe('waiting');
    expect(c.emitted).toEqual([]);
  });
});

describe('surface rules (statecharts.md §1 table)', () => {
  it('rule 3: a business state of unknown counts only on a supported surface', () => {
    expect(isUnknownForStall(obs({ availability: 'supported', businessState: 'unknown' }))).toBe(
      true,
    );
    for (const availability of ['unsupported', 'disconnected'] as const)
      expect(isUnknownForStall(obs({ availability, businessState: 'unknown' }))).toBe(false);
  });

  it('rule 4: submit ready needs a supported surface', () => {
    expect(isSubmitReady(obs({}))).toBe(true);
    for (const availability of ['unsupported', 'disconnected', 'unknown'] as const)
      expect(isSubmitReady(obs({ availability }))).toBe(false);
  });
});
