import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, setup, type AnyActorRef } from 'xstate';
import { supervisorMachine } from '../../machines/supervisor.js';
import type { TerminalInput } from '../../machines/terminal.js';

/** A stand-in terminal that keeps the input it was spawned with. */
const keeper = setup({
  types: { input: {} as TerminalInput, context: {} as { input: TerminalInput } },
}).createMachine({ id: 'keeper', context: ({ input }) => ({ input }) });

const terminalInput = (id: string): TerminalInput => ({
  terminalId: id,
  request: { target: `%${id}`, tool: 'x' },
  config: {
    stallTimeoutSeconds: 30,
    stabilitySeconds: 1,
    settleSeconds: 1,
    stallMode: 'continuous',
    stalledIsTerminal: false,
  },
  backoff: { initialSeconds: 1, maxSeconds: 8 },
});

const settle = () => new Promise((r) => setTimeout(r, 0));

/** A supervisor with stand-in terminals and a flush the test settles. */
function supervisor() {
  let flush: { resolve: () => void; reject: (e: Error) => void } | null = null;
  const actor = createActor(
    supervisorMachine.provide({
      actors: {
        terminal: keeper as never,
        flush: fromPromise(
          () => new Promise<void>((resolve, reject) => (flush = { resolve, reject })),
        ),
      },
    }),
  ).start();
  const children = () => actor.getSnapshot().children as Record<string, AnyActorRef | undefined>;
  return { actor, children, flush: () => flush! };
}

describe('supervisor actor (statecharts.md §8)', () => {
  it('spawns a terminal per attach, under its id and system id, with its input', () => {
    const s = supervisor();
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('a') });
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('b') });
    const a = s.children().a!;
    expect(a.id).toBe('a');
    expect(s.actor.system.get('a')).toBe(a);
    expect(a.getSnapshot().context.input).toEqual(terminalInput('a'));
    expect(s.children().b!.getSnapshot().context.input).toEqual(terminalInput('b'));
  });

  it('detaching stops that terminal only; the others keep running', () => {
    const s = supervisor();
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('a') });
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('b') });
    const a = s.children().a!;
    s.actor.send({ type: 'evt_detach', terminalId: 'a' });
    expect(a.getSnapshot().status).toBe('stopped');
    expect(s.children().a).toBeUndefined();
    expect(s.actor.system.get('a')).toBeUndefined();
    expect(s.children().b!.getSnapshot().status).toBe('active');
    expect(s.actor.getSnapshot().value).toBe('running');
  });

  it('each owned session has its own restart chart; releasing one stops that one only', () => {
    const s = supervisor();
    const respawn = {
      policy: 'on-failure' as const,
      limits: { initialSeconds: 1, maxSeconds: 8, limit: 3, windowSeconds: 60 },
    };
    s.actor.send({ type: 'evt_owned', terminalId: 'a', respawn });
    s.actor.send({ type: 'evt_owned', terminalId: 'b', respawn });
    const charts = () =>
      Object.values(s.children()).filter((c) => c?.getSnapshot().status === 'active');
    expect(charts()).toHaveLength(2);
    const [a, b] = charts();
    s.actor.send({ type: 'evt_released', terminalId: 'a' });
    expect(a!.getSnapshot().status).toBe('stopped');
    expect(b!.getSnapshot().status).toBe('active');
    expect(charts()).toEqual([b]);
  });

  it('stopping stops every terminal, then waits for the flush before it ends', async () => {
    const s = supervisor();
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('a') });
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('b') });
    const [a, b] = [s.children().a!, s.children().b!];
    s.actor.send({ type: 'evt_stop' });
    expect(a.getSnapshot().status).toBe('stopped');
    expect(b.getSnapshot().status).toBe('stopped');
    expect(Object.keys(s.children())).toEqual(['flush']);
    await settle();
    expect(s.actor.getSnapshot().value).toBe('stopping');
    s.flush().resolve();
    await settle();
    expect(s.actor.getSnapshot().value).toBe('stopped');
    expect(s.actor.getSnapshot().status).toBe('done');
  });

  it('a terminal whose id is flush is stopped like any other', async () => {
    const s = supervisor();
    s.actor.send({ type: 'evt_attach', terminal: terminalInput('flush') });
    const terminal = s.children().flush!;
    s.actor.send({ type: 'evt_stop' });
    expect(terminal.getSnapshot().status).toBe('stopped');
    s.flush().resolve();
    await settle();
    expect(s.actor.getSnapshot().value).toBe('stopped');
  });

  it('a flush that fails still ends the supervisor', async () => {
    const s = supervisor();
    s.actor.send({ type: 'evt_stop' });
    s.flush().reject(new Error('disk full'));
    await settle();
    expect(s.actor.getSnapshot().value).toBe('stopped');
  });

  it('without a flush of its own, stopping ends at once', async () => {
    const actor = createActor(supervisorMachine).start();
    actor.send({ type: 'evt_stop' });
    await settle();
    expect(actor.getSnapshot().value).toBe('stopped');
  });
});
