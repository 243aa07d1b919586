import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../src/observe/internal/deadline.js';

/** Holds the event loop, as a stalled supervisor does. */
function hold(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe('withDeadline', () => {
  it('rejects with timeout, naming the work, when the work takes longer than its time', async () => {
    const started = Date.now();
    await expect(withDeadline(new Promise(() => {}), 200, 'process inspection')).rejects.toThrow(
      'process inspection took longer than 200 ms',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('settles with the work when it is in time', async () => {
    await expect(
      withDeadline(
        sleep(20).then(() => 'done'),
        500,
        'work',
      ),
    ).resolves.toBe('done');
  });

  it('does not blame the work for a stall of our own process', async () => {
    // The work needs several turns of the event loop (as reading /proc does), and the loop is
    // held for three times the deadline right after it starts.
    const work = (async () => {
      for (let i = 0; i < 5; i++) await sleep(5);
      return 'done';
    })();
    const result = withDeadline(work, 200, 'process inspection');
    hold(600);
    await expect(result).resolves.toBe('done');
  });

  it('still times out work that never ends while our process keeps stalling', async () => {
    const result = withDeadline(new Promise(() => {}), 100, 'work');
    const caught = result.catch((e: Error) => e);
    for (let i = 0; i < 7; i++) {
      hold(400);
      await sleep(1);
    }
    await expect(caught).resolves.toMatchObject({ message: 'work took longer than 100 ms' });
  });
});
