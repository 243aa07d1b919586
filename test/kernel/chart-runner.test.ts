/**
 * ChartRunner and InspectionHub: each runner reports its own chart's state changes in order,
 * names the event (or, for an eventless transition, its guard) and the guard that classified
 * the event it sent; the hub hands every inspection event to an outside observer unchanged.
 */
import { describe, expect, it } from 'vitest';
import { assign, createActor, emit, setup, type InspectionEvent } from 'xstate';
import { readinessMachine } from '../../machines/readiness.js';
import type { SurfaceObservation } from '../../machines/surface.js';
import { ChartRunner, InspectionHub, type Step } from '../../src/kernel/chart-runner.js';

const SUPPORTED: SurfaceObservation = {
  availability: 'supported',
  businessState: 'idle',
  inputMode: 'freeform',
  uiContext: 'normal_prompt',
  projectionText: '',
  baselineInvalidated: false,
};
const obs = (o: Partial<SurfaceObservation>) => ({
  type: 'observation' as const,
  observation: { ...SUPPORTED, ...o },
});

function readiness(input: { stalledIsTerminal?: boolean } = {}) {
  const hub = new InspectionHub();
  const actor = createActor(readinessMachine, { input, inspect: hub.inspect }).start();
  const told: Step[] = [];
  const runner = new ChartRunner(actor, hub, (s) => told.push(s));
  return { hub, actor, runner, told };
}

describe('ChartRunner on the readiness chart', () => {
  it('names the raised event and the guard that classified the observation', () => {
    const { runner } = readiness();
    expect(runner.send(obs({}))).toEqual([
      { from: 'waiting', to: 'ready', event: 'evt_submit_ready', rule: 'submit_ready' },
    ]);
    expect(runner.state).toBe('ready');
  });

  it('the unguarded last of several branches is `otherwise`', () => {
    const { runner } = readiness();
    runner.send(obs({ businessState: 'unknown' }));
    expect(runner.send(obs({ businessState: 'working', inputMode: 'closed' }))).toEqual([
      { from: 'unknown', to: 'waiting', event: 'evt_known_nonready', rule: 'otherwise' },
    ]);
  });

  it('an event with a single unguarded transition has no rule', () => {
    const { runner } = readiness();
    runner.send(obs({ businessState: 'unknown' }));
    const steps = runner.send({ type: 'evt_unknown_timeout' });
    expect(steps).toEqual([{ from: 'unknown', to: 'stalled', event: 'evt_unknown_timeout' }]);
    expect(steps[0]).not.toHaveProperty('rule');
  });

  it('an eventless follow-up is its own step, named by its guard', () => {
    const { runner } = readiness({ stalledIsTerminal: true });
    runner.send(obs({ availability: 'unknown' }));
    expect(runner.send({ type: 'evt_unknown_timeout' })).toEqual([
      { from: 'unknown', to: 'stalled', event: 'evt_unknown_timeout' },
      { from: 'stalled', to: 'failed', event: 'stalled_is_terminal' },
    ]);
  });

  it('an event that does not move the state reports no step', () => {
    const { runner, told } = readiness();
    runner.send(obs({}));
    expect(runner.send(obs({}))).toEqual([]);
    expect(told).toHaveLength(1);
  });

  it('tells onStep about every change, also those it did not send, but returns only its own', () => {
    const { actor, runner, told } = readiness();
    // Sent past the runner: the change is told, the classifying guard is not known.
    actor.send(obs({ businessState: 'awaiting_operator', inputMode: 'modal' }));
    expect(told).toEqual([{ from: 'waiting', to: 'blocked', event: 'evt_operator_blocked' }]);
    expect(runner.send(obs({}))).toEqual([
      { from: 'blocked', to: 'ready', event: 'evt_submit_ready', rule: 'submit_ready' },
    ]);
    expect(told).toHaveLength(2);
  });

  it('the rule of an earlier send does not stick to a later step without one', () => {
    const { actor, runner, told } = readiness();
    runner.send(obs({ businessState: 'unknown' }));
    actor.send({ type: 'evt_unknown_timeout' });
    expect(told.at(-1)).toEqual({ from: 'unknown', to: 'stalled', event: 'evt_unknown_timeout' });
  });

  it('starts from the chart state it is given and stops reporting once disposed', () => {
    const { hub, actor, runner: first } = readiness();
    first.send(obs({}));
    const told: Step[] = [];
    const second = new ChartRunner(actor, hub, (s) => told.push(s));
    expect(second.state).toBe('ready');
    second.send(obs({ businessState: 'working', inputMode: 'closed' }));
    expect(told).toEqual([
      { from: 'ready', to: 'waiting', event: 'evt_known_nonready', rule: 'otherwise' },
    ]);
    second.dispose();
    actor.send(obs({}));
    expect(told).toHaveLength(1);
  });

  it('disposing a runner that another replaced leaves the other watching', () => {
    const { hub, actor, runner: first } = readiness();
    const told: Step[] = [];
    new ChartRunner(actor, hub, (s) => told.push(s));
    first.dispose();
    actor.send(obs({}));
    expect(told).toEqual([{ from: 'waiting', to: 'ready', event: 'evt_submit_ready' }]);
  });

  it('exposes the chart context and whether it is done', () => {
    const { runner } = readiness({ stalledIsTerminal: true });
    expect(runner.context).toMatchObject({ stalledIsTerminal: true, stallMode: 'continuous' });
    expect(runner.done).toBe(false);
  });
});

describe('ChartRunner: structure of the steps', () => {
  const chart = setup({
    types: {
      events: {} as
        | { type: 'go' }
        | { type: 'next' }
        | { type: 'finish' }
        | { type: 'check' }
        | { type: 'pick'; n: number },
    },
    guards: { isOne: ({ event }) => event.type === 'pick' && event.n === 1 },
  }).createMachine({
    initial: 'a',
    states: {
      a: {
        on: {
          go: 'b',
          check: { guard: ({ event }) => event.type === 'check', target: 'checked' },
          pick: [{ guard: { type: 'isOne' }, target: 'one' }, { target: 'other' }],
        },
      },
      b: { entry: emit({ type: 'entered_b' }), on: { next: 'c' } },
      c: {},
      checked: {},
      one: {},
      other: {},
      done: { type: 'final' },
    },
    on: { finish: '.done' },
  });

  function run() {
    const hub = new InspectionHub();
    const actor = createActor(chart, { inspect: hub.inspect }).start();
    return { actor, runner: new ChartRunner(actor, hub) };
  }

  it('a guard written as an object is named by its type', () => {
    const { runner } = run();
    expect(runner.send({ type: 'pick', n: 1 })).toEqual([
      { from: 'a', to: 'one', event: 'pick', rule: 'isOne' },
    ]);
    const other = run().runner;
    expect(other.send({ type: 'pick', n: 2 })).toEqual([
      { from: 'a', to: 'other', event: 'pick', rule: 'otherwise' },
    ]);
  });

  it('an inline guard has no name: its step carries no rule', () => {
    const { runner } = run();
    const steps = runner.send({ type: 'check' });
    expect(steps).toEqual([{ from: 'a', to: 'checked', event: 'check' }]);
    expect(steps[0]).not.toHaveProperty('rule');
  });

  it('an event sent while a send is under way: the outer send reports every step, in order', () => {
    const { actor, runner } = run();
    let inner: Step[] | null = null;
    actor.on('entered_b', () => {
      inner = runner.send({ type: 'next' });
    });
    expect(runner.send({ type: 'go' })).toEqual([
      { from: 'a', to: 'b', event: 'go' },
      { from: 'b', to: 'c', event: 'next' },
    ]);
    // The chart takes the inner event once the outer one is done, still within the outer send.
    expect(inner).toEqual([]);
  });

  it('is done once the chart reached a final state', () => {
    const { actor, runner } = run();
    actor.send({ type: 'finish' });
    expect(runner.done).toBe(true);
    expect(runner.state).toBe('done');
  });
});

describe('InspectionHub', () => {
  it('hands every inspection event to the outside observer, unchanged', () => {
    const seen: InspectionEvent[] = [];
    const hub = new InspectionHub((ev) => seen.push(ev));
    const actor = createActor(readinessMachine, { input: {}, inspect: hub.inspect }).start();
    const runner = new ChartRunner(actor, hub);
    seen.length = 0;
    runner.send(obs({}));
    const types = new Set(seen.map((e) => e.type));
    expect(types).toEqual(
      new Set(['@xstate.event', '@xstate.microstep', '@xstate.action', '@xstate.snapshot']),
    );
    const snapshot = seen.find((e) => e.type === '@xstate.snapshot');
    expect(snapshot).toMatchObject({ actorRef: actor, snapshot: { value: 'ready' } });
  });

  it('routes each actor its own microsteps', () => {
    const hub = new InspectionHub();
    const a = createActor(readinessMachine, { input: {}, inspect: hub.inspect }).start();
    const b = createActor(readinessMachine, { input: {}, inspect: hub.inspect }).start();
    const ra = new ChartRunner(a, hub);
    const rb = new ChartRunner(b, hub);
    expect(ra.send(obs({}))).toHaveLength(1);
    expect(rb.state).toBe('waiting');
    expect(rb.send(obs({ businessState: 'unknown' }))).toEqual([
      { from: 'waiting', to: 'unknown', event: 'evt_unknown_for_stall', rule: 'unknown_for_stall' },
    ]);
  });
});

describe('ChartRunner skipping repeats', () => {
  // A chart that counts, outside itself, how often its guard classified an event.
  function counting(
    observer?: (ev: InspectionEvent) => void,
    repeatKey?: (event: { type: string }) => string,
    everyEvent = false,
  ) {
    let asked = 0;
    const machine = setup({
      types: { events: {} as { type: 'ping'; n: number } | { type: 'reset' } },
      guards: { high: ({ event }) => (asked++, event.type === 'ping' && event.n > 5) },
      actions: { tell: emit({ type: 'told' as const }) },
    }).createMachine({
      initial: 'low',
      states: {
        low: { on: { ping: [{ guard: 'high', target: 'high' }, {}], reset: {} } },
        high: { on: { ping: { actions: 'tell' }, reset: { target: 'low' } } },
      },
    });
    const hub = new InspectionHub(observer, { everyEvent });
    const actor = createActor(machine, { inspect: hub.inspect }).start();
    const runner = new ChartRunner(actor, hub, undefined, { skipRepeats: true, repeatKey });
    return { runner, asked: () => asked };
  }

  it('does not send again an event equal to the last, which changed nothing', () => {
    const { runner, asked } = counting();
    expect(runner.send({ type: 'ping', n: 1 })).toEqual([]);
    expect(runner.send({ type: 'ping', n: 1 })).toEqual([]);
    expect(asked()).toBe(1);
    // A different event is sent, and classified.
    expect(runner.send({ type: 'ping', n: 2 })).toEqual([]);
    expect(asked()).toBe(2);
    expect(runner.send({ type: 'ping', n: 9 })).toEqual([
      { from: 'low', to: 'high', event: 'ping', rule: 'high' },
    ]);
  });

  it('sends again an event after which the chart emitted something', () => {
    const { runner } = counting();
    runner.send({ type: 'ping', n: 9 });
    const told: unknown[] = [];
    runner.actor.on('told', (e) => told.push(e));
    runner.send({ type: 'ping', n: 9 });
    runner.send({ type: 'ping', n: 9 });
    expect(told).toHaveLength(2);
  });

  it('skips a repeat also while someone outside watches: the watcher sees only events taken', () => {
    const seen: unknown[] = [];
    const { runner, asked } = counting((ev) => {
      if (ev.type === '@xstate.event' && ev.event.type === 'ping') seen.push(ev.event);
    });
    runner.send({ type: 'ping', n: 1 });
    runner.send({ type: 'ping', n: 1 });
    expect(asked()).toBe(1);
    expect(seen).toEqual([{ type: 'ping', n: 1 }]);
  });

  it('skips nothing on a hub that sends every event', () => {
    const { runner, asked } = counting(undefined, undefined, true);
    runner.send({ type: 'ping', n: 1 });
    runner.send({ type: 'ping', n: 1 });
    expect(asked()).toBe(2);
  });

  it('sends an equal event again once the state moved in between', () => {
    const { runner, asked } = counting();
    runner.send({ type: 'ping', n: 1 });
    runner.send({ type: 'ping', n: 9 });
    runner.send({ type: 'reset' });
    expect(runner.state).toBe('low');
    const before = asked();
    runner.send({ type: 'ping', n: 1 });
    expect(asked()).toBe(before + 1);
  });

  it('sends an equal event again once an event sent past the runner moved the state', () => {
    const { runner, asked } = counting();
    runner.send({ type: 'ping', n: 1 });
    // Through the tree (another chart's sendTo), not through this runner.
    runner.actor.send({ type: 'ping', n: 9 });
    expect(runner.state).toBe('high');
    const told: unknown[] = [];
    runner.actor.on('told', (e) => told.push(e));
    const before = asked();
    runner.send({ type: 'ping', n: 1 });
    expect(told).toHaveLength(1);
    expect(asked()).toBe(before);
  });

  it('counts events with the same key as equal', () => {
    // The key says the chart reads only whether n is above 5.
    const key = (e: { type: string; n?: number }) => `${e.type} ${(e.n ?? 0) > 5}`;
    const { runner, asked } = counting(undefined, key);
    runner.send({ type: 'ping', n: 1 });
    runner.send({ type: 'ping', n: 2 });
    expect(asked()).toBe(1);
    expect(runner.send({ type: 'ping', n: 7 })).toHaveLength(1);
  });

  it('counts a context rebuilt with the same values as unchanged when asked to', () => {
    const noting = (contextByValue: boolean) => {
      let asked = 0;
      const machine = setup({
        types: { context: {} as { last: number }, events: {} as { type: 'ping'; n: number } },
        guards: { any: () => (asked++, true) },
      }).createMachine({
        context: { last: 0 },
        on: { ping: { guard: 'any', actions: assign({ last: ({ event }) => event.n }) } },
      });
      const hub = new InspectionHub();
      const actor = createActor(machine, { inspect: hub.inspect }).start();
      const runner = new ChartRunner(actor, hub, undefined, { skipRepeats: true, contextByValue });
      for (let i = 0; i < 3; i++) runner.send({ type: 'ping', n: 1 });
      expect(actor.getSnapshot().context).toEqual({ last: 1 });
      return asked;
    };
    expect(noting(false)).toBe(3);
    expect(noting(true)).toBe(2);
  });
});
