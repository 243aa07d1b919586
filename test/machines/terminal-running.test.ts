import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { chartsOf, terminalMachine } from '../../machines/terminal.js';
import { baseInput, flush, shown, terminal, RUNNING_CHILDREN } from './internal/terminal-actor.js';

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
    expect(Object.keys(t.children()).sort()).toEqual(RUNNING_CHILDREN);
    expect(t.runtimes).toHaveLength(1);
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    expect(t.snap().value).toBe('restarting');
    expect(t.runtimes[0]!.stopped).toBe(true);
  });

  it('hands its charts to a runtime only while running them', () => {
    const attaching = terminal();
    // Named by its actor id (under a supervisor, the terminal id).
    expect(() => chartsOf(attaching.actor)).toThrow(
      `terminal ${attaching.actor.id} is not running its charts`,
    );
    const t = terminal(baseInput({ prepared: true }));
    const charts = chartsOf(t.actor);
    expect(Object.keys(charts).sort()).toEqual(RUNNING_CHILDREN.filter((c) => c !== 'runtime'));
    for (const [id, ref] of Object.entries(charts)) expect(ref).toBe(t.children()[id]);
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
    expect(Object.keys(c).sort()).toEqual(RUNNING_CHILDREN);
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
