import type { Observable, Subscription } from 'rxjs';

/**
 * Hands each value of `source` to `next` in order; when `before` returns a promise for one,
 * that value and those after it wait until it settles (a rejection ends it all: `error`). What
 * `concatMap` would do, without an operator's subscribers for each terminal.
 */
export function inOrder<T>(
  source: Observable<T>,
  before: (value: T) => Promise<void> | null,
  next: (value: T) => void,
  error: (e: unknown) => void,
): { unsubscribe(): void } {
  /** Values that came while one waited, oldest first (null while none wait). */
  let waiting: T[] | null = null;
  let busy = false;
  let stopped = false;
  let inner: Subscription | undefined = undefined;
  const stop = (): void => {
    stopped = true;
    waiting = null;
    inner?.unsubscribe();
  };
  const failed = (e: unknown): void => {
    stop();
    error(e);
  };
  /** Takes `value` now, or once the promise `before` returns for it settles. */
  const take = (value: T): void => {
    let wait: Promise<void> | null;
    try {
      wait = before(value);
    } catch (e) {
      failed(e);
      return;
    }
    if (wait === null) {
      next(value);
      return;
    }
    busy = true;
    wait.then(() => {
      busy = false;
      if (stopped) return;
      next(value);
      while (!busy && !stopped && waiting !== null) {
        const v = waiting.shift()!;
        if (waiting.length === 0) waiting = null;
        take(v);
      }
    }, failed);
  };
  inner = source.subscribe({
    next: (value) => {
      if (stopped) return;
      if (busy) (waiting ??= []).push(value);
      else take(value);
    },
    error: failed,
  });
  if (stopped) inner.unsubscribe();
  return { unsubscribe: stop };
}
