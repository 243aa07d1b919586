import type { Observable, Subscription } from 'rxjs';

/**
 * Hands each value of `source` to `next` in order; when `before` returns a promise for one,
 * that value and those after it wait until it settles (a rejection ends it all: `error`). What
 * `concatMap` would do, without an operator's subscribers for each terminal. Unsubscribing
 * stops it: nothing more is handed on, not even a value that was waiting.
 */
export function inOrder<T>(
  source: Observable<T>,
  before: (value: T) => Promise<void> | null,
  next: (value: T) => void,
  error: (e: unknown) => void,
): { unsubscribe(): void } {
  return new InOrder(source, before, next, error);
}

/** The state of one {@link inOrder}: a class, its methods shared, not closures per terminal. */
class InOrder<T> {
  /** Values that came while one waited, oldest first (null while none wait). */
  private waiting: T[] | null = null;
  private busy = false;
  private stopped = false;
  private inner: Subscription | null = null;

  constructor(
    source: Observable<T>,
    private readonly before: (value: T) => Promise<void> | null,
    private readonly handOn: (value: T) => void,
    private readonly onError: (e: unknown) => void,
  ) {
    // This object is the source's observer (`next`, `error`).
    const inner = source.subscribe(this);
    if (this.stopped) inner.unsubscribe();
    else this.inner = inner;
  }

  unsubscribe(): void {
    this.stopped = true;
    this.waiting = null;
    // Stopped while subscribing (a source that fails at once): the constructor unsubscribes.
    this.inner?.unsubscribe();
  }

  /** A value of the source. */
  next(value: T): void {
    if (this.stopped) return;
    if (this.busy) (this.waiting ??= []).push(value);
    else this.take(value);
  }

  /** Takes `value` now, or once the promise `before` returns for it settles. */
  private take(value: T): void {
    let wait: Promise<void> | null;
    try {
      wait = this.before(value);
    } catch (e) {
      this.fail(e);
      return;
    }
    if (wait === null) {
      this.handOn(value);
      return;
    }
    this.busy = true;
    wait.then(
      () => this.waited(value),
      (e: unknown) => {
        if (!this.stopped) this.fail(e);
      },
    );
  }

  /** The wait for `value` is over: it, then those that came meanwhile, in order. */
  private waited(value: T): void {
    this.busy = false;
    if (this.stopped) return;
    this.handOn(value);
    while (!this.busy && !this.stopped && this.waiting !== null) {
      const v = this.waiting.shift()!;
      if (this.waiting.length === 0) this.waiting = null;
      this.take(v);
    }
  }

  /** The source failed. */
  error(e: unknown): void {
    this.fail(e);
  }

  private fail(e: unknown): void {
    this.unsubscribe();
    this.onError(e);
  }
}
