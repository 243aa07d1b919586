import { PanewardError } from '../../errors.js';

/** A deadline timer that fired this much later than asked was held up by our own process. */
const OWN_STALL_MS = 250;
/** How many times a deadline starts over because of our own stalls before it counts anyway. */
const MAX_RESTARTS = 5;

/**
 * Settles with `work`, or rejects with `timeout` after `ms` or `aborted` when the signal fires.
 * The work itself is not cancelled; it is only no longer waited for. Time paneward's own
 * process was stalled does not count: a deadline timer that fires much later than it was set
 * for (the event loop was held, so the work's answer may be waiting behind it) starts over,
 * up to five times, so the work is blamed only for time it had.
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
    let restarts = 0;
    let timer: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const armedAt = Date.now();
      timer = setTimeout(() => {
        if (Date.now() - armedAt - ms > OWN_STALL_MS && restarts < MAX_RESTARTS) {
          restarts++;
          arm();
          return;
        }
        cleanup();
        reject(new PanewardError('timeout', `${what} took longer than ${ms} ms`));
      }, ms);
    };
    arm();
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
