import { Subject, concatMap, from, of, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../src/internal/in-order.js';

/** A promise and what settles it. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(e: unknown): void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('inOrder: each value in order, later ones waiting while one waits', () => {
  it('hands on values that need no wait at once, in order', () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    inOrder(
      source,
      () => null,
      (v) => seen.push(v),
      () => {},
    );
    source.next(1);
    source.next(2);
    expect(seen).toEqual([1, 2]);
  });

  it('holds a value and every later one until its promise settles; asks `before` for each in turn', async () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const asked: number[] = [];
    const wait = deferred();
    inOrder(
      source,
      (v) => {
        asked.push(v);
        return v === 2 ? wait.promise : null;
      },
      (v) => seen.push(v),
      () => {},
    );
    source.next(1);
    source.next(2);
    source.next(3);
    source.next(4);
    expect(seen).toEqual([1]);
    // 3 and 4 are looked at only once 2 is through, as concatMap would.
    expect(asked).toEqual([1, 2]);
    wait.resolve();
    await settle();
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([1, 2, 3, 4]);
    source.next(5);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('ends on a rejection: the error once, nothing more handed on, the source let go', async () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const errors: unknown[] = [];
    const wait = deferred();
    inOrder(
      source,
      (v) => (v === 2 ? wait.promise : null),
      (v) => seen.push(v),
      (e) => errors.push(e),
    );
    source.next(1);
    source.next(2);
    source.next(3);
    wait.reject(new Error('no version'));
    await settle();
    source.next(4);
    expect(seen).toEqual([1]);
    expect(errors).toEqual([new Error('no version')]);
    expect(source.observed).toBe(false);
  });

  it('ends when `before` throws, and on the source error', () => {
    const source = new Subject<number>();
    const errors: unknown[] = [];
    const seen: number[] = [];
    inOrder(
      source,
      (v) => {
        if (v === 2) throw new Error('bad');
        return null;
      },
      (v) => seen.push(v),
      (e) => errors.push(e),
    );
    source.next(1);
    source.next(2);
    source.next(3);
    expect(seen).toEqual([1]);
    expect(errors).toEqual([new Error('bad')]);
    expect(source.observed).toBe(false);

    const failing: unknown[] = [];
    inOrder(
      throwError(() => new Error('gone')),
      () => null,
      () => {},
      (e) => failing.push(e),
    );
    expect(failing).toEqual([new Error('gone')]);
  });

  it('takes a source that emits while it is subscribed, and one that fails then', () => {
    const seen: number[] = [];
    inOrder(
      of(1, 2, 3),
      () => null,
      (v) => seen.push(v),
      () => {},
    );
    expect(seen).toEqual([1, 2, 3]);

    const errors: unknown[] = [];
    const after: number[] = [];
    inOrder(
      of(1, 2, 3),
      (v) => {
        if (v === 1) throw new Error('first');
        return null;
      },
      (v) => after.push(v),
      (e) => errors.push(e),
    );
    expect(after).toEqual([]);
    expect(errors).toEqual([new Error('first')]);
  });

  it('tells no error once unsubscribed', async () => {
    const source = new Subject<number>();
    const errors: unknown[] = [];
    const wait = deferred();
    const sub = inOrder(
      source,
      () => wait.promise,
      () => {},
      (e) => errors.push(e),
    );
    source.next(1);
    sub.unsubscribe();
    wait.reject(new Error('late'));
    await settle();
    expect(errors).toEqual([]);
  });

  it('hands on nothing once unsubscribed, not even the value it was waiting for', async () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const wait = deferred();
    const sub = inOrder(
      source,
      (v) => (v === 1 ? wait.promise : null),
      (v) => seen.push(v),
      () => {},
    );
    source.next(1);
    source.next(2);
    sub.unsubscribe();
    wait.resolve();
    await settle();
    expect(seen).toEqual([]);
    expect(source.observed).toBe(false);
  });

  it('hands on what concatMap would, in the same order, on random sequences of waits', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 40; round++) {
      const count = 1 + Math.floor(random() * 12);
      const waits = Array.from({ length: count }, () => random() < 0.4);
      // What had been handed on after each value and each settled wait, then in the end.
      const run = async (useInOrder: boolean): Promise<number[][]> => {
        const source = new Subject<number>();
        const seen: number[] = [];
        const trace: number[][] = [];
        const pending: Array<() => void> = [];
        const before = (v: number): Promise<void> | null => {
          if (!waits[v]) return null;
          const d = deferred();
          pending.push(d.resolve);
          return d.promise;
        };
        if (useInOrder)
          inOrder(
            source,
            before,
            (v) => seen.push(v),
            () => {},
          );
        else {
          source
            .pipe(
              concatMap((v) => {
                const w = before(v);
                return w ? from(w.then(() => v)) : of(v);
              }),
            )
            .subscribe((v) => seen.push(v));
        }
        for (let v = 0; v < count; v++) {
          source.next(v);
          trace.push([...seen]);
          // Now and then a wait settles between two values.
          if (random() < 0.5) {
            pending.shift()?.();
            await settle();
            trace.push([...seen]);
          }
        }
        while (pending.length > 0) {
          pending.shift()!();
          await settle();
          trace.push([...seen]);
        }
        return trace;
      };
      const state = seed;
      const ours = await run(true);
      seed = state;
      const theirs = await run(false);
      expect(ours).toEqual(theirs);
      expect(ours.at(-1)).toEqual(Array.from({ length: count }, (_, i) => i));
    }
  });
});
