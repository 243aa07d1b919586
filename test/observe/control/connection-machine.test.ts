import { describe, expect, it } from 'vitest';
import {
  CONNECTION_TRANSITIONS,
  initialConnection,
  transition,
  type Connection,
  type ConnectionEvent,
  type ConnectionState,
} from '../../../src/observe/control/connection-machine.js';

const backoff = { initialMs: 100, maxMs: 1000 };
const run = (events: ConnectionEvent[], from = initialConnection(backoff)): Connection[] => {
  const seen: Connection[] = [];
  let c = from;
  for (const e of events) seen.push((c = transition(c, e, backoff)));
  return seen;
};
const states = (cs: Connection[]): ConnectionState[] => cs.map((c) => c.state);

describe('the control client connection machine', () => {
  it('connects on start and attach, and goes back to reconnecting when the client ends', () => {
    const cs = run([{ type: 'start' }, { type: 'attached' }, { type: 'exited', ranMs: 50 }]);
    expect(states(cs)).toEqual(['connecting', 'connected', 'reconnecting']);
    expect(cs[2]).toMatchObject({ restarts: 1, waitMs: 100, delayMs: 200 });
  });

  it('doubles the wait per failure up to the cap, and keeps the state a restart attempt is in', () => {
    const cs = run([
      { type: 'start' },
      { type: 'failed' },
      { type: 'start' },
      { type: 'failed' },
      { type: 'failed' },
      { type: 'failed' },
      { type: 'failed' },
      { type: 'failed' },
    ]);
    expect(states(cs)).toEqual([
      'connecting',
      'reconnecting',
      'reconnecting',
      'reconnecting',
      'reconnecting',
      'reconnecting',
      'reconnecting',
      'reconnecting',
    ]);
    expect(cs.filter((_, i) => i !== 0 && i !== 2).map((c) => c.waitMs)).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    // `start` from reconnecting changes nothing: the same object comes back.
    expect(cs[2]).toBe(cs[1]);
  });

  it('looks for a missing server at least every 2 s whatever the backoff', () => {
    const slow = { initialMs: 1500, maxMs: 60_000 };
    let c = transition(initialConnection(slow), { type: 'start' }, slow);
    const waits: (number | null)[] = [];
    for (let i = 0; i < 3; i++) {
      c = transition(c, { type: 'no_server' }, slow);
      expect(c.state).toBe('server_missing');
      waits.push(c.waitMs);
    }
    expect(waits).toEqual([1500, 2000, 2000]);
    expect(c.delayMs).toBe(12_000);
    expect(transition(c, { type: 'attached' }, slow).state).toBe('connected');
  });

  it('answers the end of a client that ran a while with the first, short wait', () => {
    const [, , , , ended] = run([
      { type: 'start' },
      { type: 'failed' },
      { type: 'failed' },
      { type: 'attached' },
      { type: 'exited', ranMs: 30_000 },
    ]);
    expect(ended).toMatchObject({ state: 'reconnecting', waitMs: 100, delayMs: 200, restarts: 1 });
  });

  it('ignores what a state does not list, and closed is final', () => {
    const idle = initialConnection(backoff);
    expect(transition(idle, { type: 'attached' }, backoff)).toBe(idle);
    expect(transition(idle, { type: 'exited', ranMs: 1 }, backoff)).toBe(idle);
    const [connected] = run([{ type: 'attached' }], run([{ type: 'start' }])[0]);
    expect(connected!.state).toBe('connected');
    expect(transition(connected!, { type: 'failed' }, backoff)).toBe(connected);
    expect(transition(connected!, { type: 'no_server' }, backoff)).toBe(connected);
    const closed = transition(connected!, { type: 'close' }, backoff);
    expect(closed.state).toBe('closed');
    for (const type of ['start', 'no_server', 'failed', 'attached', 'close'] as const) {
      expect(transition(closed, { type }, backoff)).toBe(closed);
    }
    expect(transition(closed, { type: 'exited', ranMs: 1 }, backoff)).toBe(closed);
  });

  it('can close from every state but closed, and every state is reachable from idle', () => {
    const reach = new Set<ConnectionState>(['idle']);
    let frontier: ConnectionState[] = ['idle'];
    while (frontier.length > 0) {
      const next: ConnectionState[] = [];
      for (const s of frontier) {
        for (const to of Object.values(CONNECTION_TRANSITIONS[s])) {
          if (reach.has(to)) continue;
          next.push(to);
          reach.add(to);
        }
      }
      frontier = next;
    }
    expect([...reach].sort()).toEqual(Object.keys(CONNECTION_TRANSITIONS).sort());
    for (const s of Object.keys(CONNECTION_TRANSITIONS) as ConnectionState[]) {
      if (s !== 'closed') expect(CONNECTION_TRANSITIONS[s].close).toBe('closed');
    }
  });
});
