import { PanewardError } from '../../errors.js';

/** A counting semaphore; waiters are served first come, first served. */
export class Semaphore {
  #available: number;
  readonly #waiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new PanewardError(
        'invalid_input',
        `semaphore limit must be a positive integer, got ${limit}`,
      );
    }
    this.#available = limit;
  }

  /** Slots currently held. */
  get inUse(): number {
    return this.limit - this.#available;
  }

  /** Waits for a slot; rejects with `aborted` if the signal fires first. Returns the release function. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    if (this.#available > 0) {
      this.#available -= 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#releaser());
      };
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(grant);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(abortedError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  /** Runs `fn` while holding a slot. */
  async use<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Hand the slot straight to the next waiter so a newcomer cannot overtake it.
      const next = this.#waiters.shift();
      if (next) next();
      else this.#available += 1;
    };
  }
}

function abortedError(signal: AbortSignal | undefined): PanewardError {
  return new PanewardError('aborted', 'operation aborted', { cause: signal?.reason });
}
