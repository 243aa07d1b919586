/**
 * The restart policy's arithmetic (docs/spawn.md): the backoff doubles per restart inside the
 * window and is capped; only restarts inside the window count toward the limit; a death one
 * past the limit gives up, saying how many deaths in how long and how the last one ended; only
 * status 0 with no signal is a clean exit. The generated path tests walk the chart's edges on
 * paths far shorter than the window; these put times on them.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { respawnMachine, type RespawnLimits, type RespawnRequest } from '../../machines/respawn.js';

const LIMITS: RespawnLimits = { initialSeconds: 1, maxSeconds: 8, limit: 3, windowSeconds: 60 };

function start(limits: RespawnLimits = LIMITS, policy: 'never' | 'on-failure' = 'on-failure') {
  const actor = createActor(respawnMachine, { input: { policy, limits } }).start();
  const asked: RespawnRequest[] = [];
  actor.on('*', (e) => asked.push(e as RespawnRequest));
  return {
    actor,
    asked,
    state: () => actor.getSnapshot().value,
    /** The CLI dies at `atS` seconds (epoch ms in the event). */
    dies(atS: number, exit: { status?: number | null; signal?: string | null } = {}) {
      actor.send({
        type: 'evt_cli_died',
        status: exit.status === undefined ? 1 : exit.status,
        signal: exit.signal ?? null,
        at: atS * 1000,
      });
    },
    /** The backoff runs out and the CLI is started again at `atS` seconds. */
    restarts(atS: number) {
      actor.send({ type: 'evt_backoff_elapsed' });
      actor.send({ type: 'evt_respawned', at: atS * 1000 });
    },
  };
}

const delays = (asked: RespawnRequest[]) =>
  asked.flatMap((r) => (r.type === 'backoff.start' ? [r.delaySeconds] : []));

describe('the restart policy of a started CLI', () => {
  it('only status 0 with no signal is a clean exit; a signal is a failure whatever the status', () => {
    const clean = start();
    clean.dies(1, { status: 0 });
    expect(clean.state()).toBe('ended');
    const signalled = start();
    signalled.dies(1, { status: 0, signal: 'SIGTERM' });
    expect(signalled.state()).toBe('backing_off');
    const failed = start();
    failed.dies(1, { status: 2 });
    expect(failed.state()).toBe('backing_off');
  });

  it('the backoff doubles per restart inside the window, up to its cap', () => {
    const r = start({ ...LIMITS, limit: 10 });
    for (let i = 0; i < 6; i++) {
      r.dies(10 + i);
      r.restarts(10 + i + 0.5);
    }
    expect(delays(r.asked)).toEqual([1, 2, 4, 8, 8, 8]);
  });

  it('each restart is asked for as the next attempt, after its delay, with the exit that caused it', () => {
    const r = start();
    r.dies(5, { status: null, signal: 'SIGKILL' });
    r.restarts(6);
    r.dies(7, { status: 3 });
    r.actor.send({ type: 'evt_backoff_elapsed' });
    const respawns = r.asked.filter((a) => a.type === 'respawn');
    expect(respawns).toEqual([
      {
        type: 'respawn',
        attempt: 1,
        delaySeconds: 1,
        exit: { status: null, signal: 'SIGKILL', at: 5000 },
      },
      { type: 'respawn', attempt: 2, delaySeconds: 2, exit: { status: 3, signal: null, at: 7000 } },
    ]);
  });

  it('restarts older than the window count for nothing: neither the backoff nor the limit', () => {
    const r = start({ ...LIMITS, limit: 2 });
    // Each death 59 s after the restart before it: that restart is inside the window, the ones
    // before it are not. Counting them all would double the delay each time and give up.
    for (let i = 0; i < 5; i++) {
      r.dies(100 + i * 60);
      r.restarts(100 + i * 60 + 1);
    }
    expect(r.state()).toBe('running');
    expect(delays(r.asked)).toEqual([1, 2, 2, 2, 2]);
  });

  it('a restart exactly a window old is out of it; one a moment younger is in', () => {
    const out = start({ ...LIMITS, limit: 1 });
    out.dies(0);
    out.restarts(1);
    out.dies(61);
    expect(out.state()).toBe('backing_off');
    const inside = start({ ...LIMITS, limit: 1 });
    inside.dies(0);
    inside.restarts(1);
    inside.dies(60.999);
    expect(inside.state()).toBe('gave_up');
  });

  it('one death past the limit inside the window gives up, and says why', () => {
    const r = start({ ...LIMITS, limit: 2 });
    r.dies(1);
    r.restarts(2);
    r.dies(3, { signal: 'SIGSEGV', status: null });
    r.restarts(5);
    r.dies(6, { status: 137 });
    expect(r.state()).toBe('gave_up');
    const gave = r.asked.find((a) => a.type === 'gave_up');
    expect(gave).toEqual({
      type: 'gave_up',
      restarts: 2,
      exit: { status: 137, signal: null, at: 6000 },
      reason:
        'the CLI died 3 times within 60 s (last: status 137); restarts gave up at the limit of 2',
    });
    expect(r.actor.getSnapshot().context.gaveUp).toEqual({ reason: gave!.reason, at: 6000 });
    expect(r.actor.getSnapshot().context.restarts).toBe(2);
  });

  it('the reason names a signal when the CLI was killed by one', () => {
    const r = start({ ...LIMITS, limit: 0 });
    r.dies(1, { signal: 'SIGKILL', status: null });
    const gave = r.asked.find((a) => a.type === 'gave_up');
    expect(gave && gave.type === 'gave_up' && gave.reason).toContain('(last: signal SIGKILL)');
  });

  it('every death under never ends it, clean or not', () => {
    const r = start(LIMITS, 'never');
    r.dies(1, { status: 1 });
    expect(r.state()).toBe('ended');
    expect(r.actor.getSnapshot().context.lastExit).toEqual({ status: 1, signal: null, at: 1000 });
  });
});
