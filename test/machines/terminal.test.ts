import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  SimulatedClock,
  type AnyActorRef,
} from 'xstate';
import {
  terminalMachine,
  type ChartConfig,
  type Preparation,
  type TerminalRuntimeEvent,
  type TerminalInput,
  type TerminalRuntimeInput,
} from '../../machines/terminal.js';

/** Deliberately unlike the defaults, so a chart that ignored its input would show it. */
const CONFIG: ChartConfig = {
  stallTimeoutSeconds: 7,
  stabilitySeconds: 3,
  settleSeconds: 2,
  stallMode: 'gap',
  stalledIsTerminal: true,
};

const BACKOFF = { initialSeconds: 0.5, maxSeconds: 3 };

/** A terminal attached to a pane (it prepares the pane first). */
const baseInput = (over: Partial<TerminalInput> = {}): TerminalInput => ({
  terminalId: 't1',
  request: { target: '%1', tool: 'claude_code' },
  config: CONFIG,
  backoff: BACKOFF,
  ...over,
});

/** The top-level state. */
const top = (value: unknown): string =>
  typeof value === 'string' ? value : Object.keys(value as object)[0]!;

const flush = () => new Promise((r) => setTimeout(r, 0));

/** A stand-in for a public state: the terminal carries it without reading it. */
const shown = (n: number) => ({ shown: n }) as unknown as TerminalState;

/**
 * One terminal actor on a simulated clock, with a prepare step and a runtime the test
 * controls: each prepare call is recorded and settled on cue; each runtime start is recorded
 * with the events the terminal hands it and whether it was stopped.
 */
function terminal(input: TerminalInput = baseInput(), charts: Record<string, unknown> = {}) {
  const clock = new SimulatedClock();
  const prepares: {
    input: TerminalRuntimeInput;
    resolve: (p: Preparation) => void;
    reject: (e: unknown) => void;
  }[] = [];
  const runtimes: {
    input: TerminalRuntimeInput;
    handed: TerminalRuntimeEvent[];
    stopped: boolean;
    sendBack: (event: { type: string; [k: string]: unknown }) => void;
  }[] = [];
  const logic = terminalMachine.provide({
    actors: {
      prepare: fromPromise<Preparation, TerminalRuntimeInput>(
        ({ input }) =>
          new Promise<Preparation>((resolve, reject) => prepares.push({ input, resolve, reject })),
      ),
      runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(
        ({ input, receive, sendBack }) => {
          const record = {
            input,
            handed: [] as TerminalRuntimeEvent[],
            stopped: false,
            sendBack: sendBack as (event: { type: string }) => void,
          };
          runtimes.push(record);
          receive((event) => record.handed.push(event));
          return () => {
            record.stopped = true;
          };
        },
      ),
      ...(charts as object),
    },
  });
  const actor = createActor(logic, { input, clock }).start();
  const snap = () => actor.getSnapshot();
  const children = () => snap().children as Record<string, AnyActorRef | undefined>;
  /** Resolves the pending prepare with the request it was given (tool resolved) and no turn. */
  const prepared = async (over: Partial<Preparation> = {}) => {
    const p = prepares.at(-1)!;
    p.resolve({ request: { ...p.input.request }, openTurn: null, ...over });
    await flush();
  };
  return { actor, clock, prepares, runtimes, snap, children, prepared };
}

describe('terminal actor: attaching (statecharts.md §8)', () => {
  it('starts attaching, with no restart, no error, no turn and the given public state', () => {
    const t = terminal(baseInput({ state: shown(1) }));
    expect(t.snap().value).toBe('attaching');
    expect(t.snap().context).toMatchObject({
      restarts: 0,
      lastError: null,
      completionId: null,
      state: shown(1),
    });
  });

  it('shows no public state until one is published, when none was given', () => {
    expect(terminal().snap().context.state).toBeNull();
  });

  it('prepares the pane with itself, its id, its request and its restart count', () => {
    const t = terminal();
    expect(t.prepares).toHaveLength(1);
    const { input } = t.prepares[0]!;
    expect(input.terminal).toBe(t.actor);
    expect(input.terminalId).toBe('t1');
    expect(input.request).toEqual({ target: '%1', tool: 'claude_code' });
    expect(input.restarts).toBe(0);
  });

  it('runs with the request and the open turn that preparing yields', async () => {
    const t = terminal(baseInput({ request: { target: '%1', tool: 'auto', detect: true } }));
    const turn = { id: 'u1', source: 'explicit_input' as const, startedAt: 4 };
    const witness = { authority: 'both' as const, windowSeconds: 3, endings: [] };
    await t.prepared({
      request: { target: '%1', tool: 'codex', detect: true },
      openTurn: { turn, hadEvidence: true },
      witness,
    });
    expect(t.snap().value).toEqual('running');
    expect(t.snap().context.request).toEqual({ target: '%1', tool: 'codex', detect: true });
    expect(t.snap().context.openTurn).toEqual({ turn, hadEvidence: true });
    // The restored turn reaches the turn-phase chart: it is open, and the phase active.
    const phase = t.children().turnPhase!.getSnapshot();
    expect(phase.context.current).toEqual(turn);
    expect(phase.value).toBe('active');
    // The runtime is started for the prepared request.
    expect(t.runtimes).toHaveLength(1);
    expect(t.runtimes[0]!.input).toEqual({
      terminal: t.actor,
      terminalId: 't1',
      request: { target: '%1', tool: 'codex', detect: true },
      restarts: 0,
      openTurn: { turn, hadEvidence: true },
      witness,
    });
    // The witness chart settles the tool's turns as preparing found them.
    expect(t.children().witness!.getSnapshot().context.config).toEqual(witness);
  });

  it('given a prepared pane (a replay), runs its charts at once, with no prepare step', () => {
    const t = terminal(baseInput({ prepared: true }));
    expect(t.snap().value).toBe('running');
    expect(t.prepares).toHaveLength(0);
    expect(Object.keys(t.children()).sort()).toEqual(
      [
        'diagnostics',
        'lastTurn',
        'readiness',
        'runtime',
        'turnPhase',
        'watchdog',
        'witness',
      ].sort(),
    );
    expect(t.runtimes).toHaveLength(1);
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    expect(t.snap().value).toBe('restarting');
    expect(t.runtimes[0]!.stopped).toBe(true);
  });

  it('without a prepare step of its own, runs with the request as given and no open turn', async () => {
    const actor = createActor(terminalMachine, { input: baseInput() }).start();
    await flush();
    expect(actor.getSnapshot().value).toEqual('running');
    expect(actor.getSnapshot().context.request).toEqual({ target: '%1', tool: 'claude_code' });
    expect(actor.getSnapshot().context.openTurn).toBeNull();
    actor.stop();
  });
});

describe('terminal actor: running', () => {
  it('runs each chart with its input: the chart config, the open turn and the watchdog budget', async () => {
    const t = terminal(
      baseInput({ request: { target: '%1', tool: 'x', watchdogBudgetSeconds: 9 } }),
    );
    await t.prepared();
    const c = t.children();
    expect(Object.keys(c).sort()).toEqual(
      [
        'diagnostics',
        'lastTurn',
        'readiness',
        'runtime',
        'turnPhase',
        'watchdog',
        'witness',
      ].sort(),
    );
    expect(c.readiness!.getSnapshot().context).toEqual({
      stalledIsTerminal: true,
      stallTimeoutSeconds: 7,
      stallMode: 'gap',
    });
    expect(c.turnPhase!.getSnapshot().context).toMatchObject({ settleSeconds: 2, current: null });
    expect(c.turnPhase!.getSnapshot().value).toBe('unknown');
    expect(c.watchdog!.getSnapshot().context.budgetSeconds).toBe(9);
    expect(c.diagnostics!.getSnapshot().value).toBe('unknown');
    expect(c.lastTurn!.getSnapshot().value).toBe('none');
    // Preparing named no witness: the screen alone settles turns.
    expect(c.witness!.getSnapshot().context.config).toBeNull();
  });

  it('has no watchdog budget when the request names none', async () => {
    const t = terminal();
    await t.prepared();
    const watchdog = t.children().watchdog!;
    expect(watchdog.getSnapshot().context.budgetSeconds).toBe(0);
    watchdog.send({ type: 'evt_session_started', at: 0 });
    expect(watchdog.getSnapshot().value).toBe('disabled');
  });

  it('hands each turn’s completion actor to its runtime as it spawns it', async () => {
    const t = terminal();
    await t.prepared();
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u1', baseline: '' });
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u2', baseline: '' });
    const handed = t.runtimes[0]!.handed;
    expect(handed.map((e) => [e.type, e.turnId])).toEqual([
      ['turn.completion', 'u1'],
      ['turn.completion', 'u2'],
    ]);
    expect(handed[1]!.ref).toBe(t.children()['completion:u2']);
    expect(handed[0]!.ref.getSnapshot().status).toBe('stopped');
  });

  it('publishes the state its runtime sends, in any lifecycle state', async () => {
    const t = terminal(baseInput({ state: shown(0) }));
    t.actor.send({ type: 'evt_state', state: shown(1) });
    expect(t.snap().context.state).toEqual({ shown: 1 });
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_state', state: shown(2) });
    expect(t.snap().context.state).toEqual({ shown: 2 });
    // Another event leaves it as published.
    t.actor.send({ type: 'evt_turn_closed' });
    expect(t.snap().context.state).toEqual({ shown: 2 });
  });
});

describe('terminal actor: one completion actor per turn', () => {
  it('spawns completion:<turn id> with the chart config and the turn baseline', async () => {
    const t = terminal();
    await t.prepared();
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u1', baseline: 'before' });
    expect(t.snap().context.completionId).toBe('completion:u1');
    const completion = t.children()['completion:u1']!;
    expect(completion.getSnapshot().value).toBe('waiting');
    expect(completion.getSnapshot().context).toMatchObject({
      stalledIsTerminal: true,
      stallTimeoutSeconds: 7,
      stallMode: 'gap',
      stabilitySeconds: 3,
    });
    expect(completion.getSnapshot().context.evidence.baselineKey).toBe('before');
  });

  it('a new turn stops the previous turn’s completion actor', async () => {
    const t = terminal();
    await t.prepared();
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u1', baseline: '' });
    const first = t.children()['completion:u1']!;
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u2', baseline: '' });
    expect(first.getSnapshot().status).toBe('stopped');
    expect(t.children()['completion:u1']).toBeUndefined();
    expect(t.children()['completion:u2']!.getSnapshot().status).toBe('active');
    expect(t.snap().context.completionId).toBe('completion:u2');
  });

  it('closing the turn stops its completion actor and forgets it', async () => {
    const t = terminal();
    await t.prepared();
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u1', baseline: '' });
    const completion = t.children()['completion:u1']!;
    t.actor.send({ type: 'evt_turn_closed' });
    expect(completion.getSnapshot().status).toBe('stopped');
    expect(t.children()['completion:u1']).toBeUndefined();
    expect(t.snap().context.completionId).toBeNull();
  });

  it('leaving running (the runtime failed) stops the turn’s completion actor', async () => {
    const t = terminal();
    await t.prepared();
    t.actor.send({ type: 'evt_turn_armed', turnId: 'u1', baseline: '' });
    const completion = t.children()['completion:u1']!;
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'boom' });
    expect(t.snap().value).toBe('restarting');
    expect(completion.getSnapshot().status).toBe('stopped');
    expect(t.snap().context.completionId).toBeNull();
  });
});

describe('terminal actor: failures and restarts with capped backoff', () => {
  it('a failed runtime is stopped and its error recorded', async () => {
    const t = terminal();
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'pane vanished' });
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe('pane vanished');
    expect(t.runtimes[0]!.stopped).toBe(true);
    expect(t.children().readiness).toBeUndefined();
  });

  it.each([
    ['an Error: its message', new Error('no such pane'), 'no such pane'],
    ['a string: as is', 'tmux gone', 'tmux gone'],
    ['anything else: as text', 42, '42'],
  ])('a failed prepare records %s', async (_name, error, text) => {
    const t = terminal();
    t.prepares[0]!.reject(error);
    await flush();
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe(text);
  });

  it('a chart that fails restarts the terminal with the chart’s error', async () => {
    const failing = createMachine({
      id: 'failing',
      initial: 'on',
      states: {
        on: {
          entry: () => {
            throw new Error('chart broke');
          },
        },
      },
    });
    const t = terminal(baseInput(), { readiness: failing });
    await t.prepared();
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe('chart broke');
  });

  it('each restart waits initial × 2^restarts, capped, then prepares again with the count', async () => {
    const t = terminal();
    await t.prepared();
    // 0.5 s, 1 s, 2 s, then the 3 s cap (not 4 s), and the cap again.
    const waits = [500, 1000, 2000, 3000, 3000];
    for (const [n, wait] of waits.entries()) {
      t.runtimes.at(-1)!.sendBack({ type: 'evt_runtime_failed', error: `fail ${n}` });
      expect(t.snap().value).toBe('restarting');
      t.clock.increment(wait - 1);
      expect(t.snap().value, `restart ${n} still waits 1 ms before ${wait} ms`).toBe('restarting');
      expect(t.snap().context.restarts).toBe(n);
      t.clock.increment(1);
      expect(t.snap().value).toBe('attaching');
      expect(t.snap().context.restarts).toBe(n + 1);
      expect(t.prepares.at(-1)!.input.restarts).toBe(n + 1);
      await t.prepared();
      expect(t.snap().value).toEqual('running');
      expect(t.runtimes.at(-1)!.input.restarts).toBe(n + 1);
    }
  });

  it('the public state survives a restart', async () => {
    const t = terminal();
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_state', state: { shown: 'last' } });
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    t.clock.increment(500);
    await t.prepared();
    expect(t.snap().context.state).toEqual({ shown: 'last' });
  });
});

describe('terminal actor: retool and detach', () => {
  it('a retool prepares again at once with the tool to detect, keeping the rest of the request', async () => {
    const t = terminal(
      baseInput({ request: { target: '%3', tool: 'unsupported', detect: true, toolVersion: '1' } }),
    );
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_retool' });
    expect(t.snap().value).toBe('attaching');
    expect(t.runtimes[0]!.stopped).toBe(true);
    expect(t.snap().context.restarts).toBe(0);
    expect(t.snap().context.request).toEqual({
      target: '%3',
      tool: 'auto',
      detect: true,
      toolVersion: '1',
    });
    expect(t.prepares).toHaveLength(2);
    expect(t.prepares[1]!.input.request.tool).toBe('auto');
  });

  it.each(['attaching', 'running', 'restarting'])('detaching ends it from %s', async (from) => {
    const t = terminal();
    if (from !== 'attaching') await t.prepared();
    if (from === 'restarting') t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    expect(top(t.snap().value)).toBe(from);
    t.actor.send({ type: 'evt_detach' });
    expect(t.snap().value).toBe('detached');
    expect(t.snap().status).toBe('done');
    for (const r of t.runtimes) expect(r.stopped).toBe(true);
  });
});
