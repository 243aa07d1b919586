// The respawn chart's window (docs/spawn.md): restarts older than `windowSeconds` no longer
// count, neither toward the limit nor toward the backoff's doubling.
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { RespawnRequest } from '../../machines/respawn.js';
import { Journal } from '../../src/journal/journal.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { RespawnDriver, supervisorRespawnCharts } from '../../src/supervisor/respawn.js';
import { supervisorMachine } from '../../machines/supervisor.js';

describe('respawn window', () => {
  it('forgets restarts older than the window: no giving up, the first delay again', async () => {
    const clock = new VirtualClock();
    const moveTo = (s: number) => {
      clock.scheduler.schedule(() => undefined, s * 1000 - clock.scheduler.now());
      clock.advanceTo(s);
    };
    const journal = new Journal({ dataDir: null });
    const asked: Array<Extract<RespawnRequest, { type: 'respawn' }>> = [];
    const driver = new RespawnDriver({
      terminalId: 't1',
      charts: supervisorRespawnCharts(createActor(supervisorMachine).start()),
      policy: 'on-failure',
      limits: { initialSeconds: 2, maxSeconds: 5, limit: 2, windowSeconds: 100 },
      scheduler: clock.scheduler,
      journal,
      respawn: (r) => {
        asked.push(r);
        return Promise.resolve({ resumed: true });
      },
      changed: () => undefined,
    });
    const settle = async () => {
      await new Promise<void>((r) => setImmediate(r));
      await journal.flush();
      await new Promise<void>((r) => setImmediate(r));
    };
    const die = async (at: number) => {
      moveTo(at);
      driver.send({ type: 'evt_cli_died', status: null, signal: 'SIGKILL', at: at * 1000 });
      await settle();
    };
    await die(1);
    moveTo(3); // 2 s
    await settle();
    await die(10);
    moveTo(14); // 4 s
    await settle();
    expect(asked.map((r) => r.delaySeconds)).toEqual([2, 4]);
    expect(driver.state).toBe('running');
    // Within the window a third death gives up; 100 s after both restarts it is the first again.
    await die(200);
    expect(driver.state).toBe('backing_off');
    moveTo(202);
    await settle();
    expect(asked.map((r) => r.delaySeconds)).toEqual([2, 4, 2]);
    await die(203);
    moveTo(207); // 4 s: one restart in the window
    await settle();
    await die(208);
    expect(driver.state).toBe('gave_up');
    expect(driver.view().gaveUp?.reason).toBe(
      'the CLI died 3 times within 100 s (last: signal SIGKILL); restarts gave up at the limit of 2',
    );
    expect(driver.view().lastExit).toEqual({
      status: null,
      signal: 'SIGKILL',
      at: new Date(208_000).toISOString(),
    });
    await journal.flush();
    expect(journal.read().map((r) => r.kind)).toEqual([
      'terminal.respawned',
      'terminal.respawned',
      'terminal.respawned',
      'terminal.respawned',
      'terminal.respawn_gave_up',
    ]);
    driver.release();
    await journal.close();
  });
});
