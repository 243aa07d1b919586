import { PanewardError } from '../../errors.js';

/**
 * Settles with `work`, or rejects with `timeout` after `ms` or `aborted` when the signal fires.
 * The work itself is not cancelled; it is only no longer waited for.
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  if (signal?.aborted) {
    work.catch(() => undefined);
    return Promise.reject(
      new PanewardError('aborted', `${what} aborted`, { cause: signal.reason }),
    );
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      cleanup();
      reject(new PanewardError('aborted', `${what} aborted`, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new PanewardError('timeout', `${what} took longer than ${ms} ms`));
    }, ms);
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}
