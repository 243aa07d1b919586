import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/observe/internal/semaphore.js';
import { PanewardError } from '../../src/errors.js';

describe('Semaphore', () => {
  it('never lets more than `limit` holders run and serves waiters in order', async () => {
    const sem = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) =>
      sem.use(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        order.push(i);
        running -= 1;
      });
    await Promise.all([0, 1, 2, 3, 4, 5].map(task));
    expect(peak).toBe(2);
    expect(sem.inUse).toBe(0);
    expect(order.slice(2)).toEqual([2, 3, 4, 5]);
  });

  it('rejects a waiter whose signal aborts, without losing the slot', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const controller = new AbortController();
    const waiting = sem.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    release();
    const again = await sem.acquire();
    expect(sem.inUse).toBe(1);
    again();
    expect(sem.inUse).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new Semaphore(0)).toThrow(PanewardError);
  });
});
