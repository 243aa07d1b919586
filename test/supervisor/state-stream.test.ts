import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup, type AnyActorRef } from 'xstate';
import { supervisorMachine } from '../../machines/supervisor.js';
import { Journal } from '../../src/journal/journal.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { TerminalActors } from '../../src/supervisor/terminals.js';

/** A terminal actor that only holds a public state, set from outside (`set`), or a counter (`tick`). */
const heldState = setup({
  types: {
    context: {} as { terminalId: string; state: TerminalState; ticks: number },
    input: {} as { terminalId: string; state: TerminalState },
    events: {} as { type: 'set'; state: TerminalState } | { type: 'tick' },
  },
}).createMachine({
  context: ({ input }) => ({ terminalId: input.terminalId, state: input.state, ticks: 0 }),
  on: {
    set: { actions: assign({ state: ({ event }) => event.state }) },
    tick: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) },
  },
});

function fleet() {
  const journal = new Journal({ dataDir: null });
  const actor = createActor(
    supervisorMachine.provide({ actors: { terminal: heldState as never } }),
  ).start();
  const terminals = new TerminalActors(actor, {
    journal,
    scheduler: asyncScheduler,
    config: KernelConfig.parse({}),
    backoff: { initialSeconds: 1, maxSeconds: 2 },
    onRestart: () => {},
  });
  terminals.spawn('t1', { target: '%1', tool: 'claude_code' }, false);
  // Not a terminal machine: it takes this test's own events.
  return { actor, terminals, ref: terminals.get('t1') as AnyActorRef };
}

describe("a terminal's state$", () => {
  it('starts with the state now, then tells each change of the public state once, and ends with the terminal', () => {
    const { actor, terminals, ref } = fleet();
    const first = terminals.state('t1');
    const seen: TerminalState[] = [];
    let completed = false;
    const sub = terminals.state$('t1').subscribe({
      next: (s) => seen.push(s),
      complete: () => (completed = true),
    });
    expect(seen).toEqual([first]);

    // A snapshot whose state is the same (another context field moved), or an equal copy: nothing.
    ref.send({ type: 'tick' });
    ref.send({ type: 'set', state: structuredClone(first) });
    expect(seen).toHaveLength(1);

    const waiting: TerminalState = {
      ...first,
      readiness: { ...first.readiness, status: 'ready' },
    };
    ref.send({ type: 'set', state: waiting });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.readiness.status).toBe('ready');

    // Each subscriber has its own start and its own last state.
    const later: TerminalState[] = [];
    const other = terminals.state$('t1').subscribe((s) => later.push(s));
    expect(later).toEqual([waiting]);
    other.unsubscribe();
    ref.send({ type: 'set', state: first });
    expect(seen).toHaveLength(3);
    expect(later).toHaveLength(1);

    actor.send({ type: 'evt_detach', terminalId: 't1' });
    expect(completed).toBe(true);
    sub.unsubscribe();
    actor.stop();
  });
});
