import type { SchedulerLike } from 'rxjs';
import type { AnyActorRef } from 'xstate';
import type { TerminalContext } from '../../machines/terminal.js';
import type { RestartRecord } from './options.js';

/**
 * Tells `onRestart` about each restart of a terminal's runtime (each entry into `restarting`),
 * with the delay its capped exponential backoff chose.
 */
export function watchRestarts(
  ref: AnyActorRef,
  terminalId: string,
  scheduler: SchedulerLike,
  onRestart: (record: RestartRecord) => void,
): void {
  let last = '';
  ref.subscribe({
    next: (s: { value: unknown; context: TerminalContext }) => {
      const value = String(s.value);
      if (value === 'restarting' && last !== 'restarting') {
        const c = s.context;
        onRestart({
          terminalId,
          attempt: c.restarts + 1,
          delaySeconds: Math.min(c.backoff.maxSeconds, c.backoff.initialSeconds * 2 ** c.restarts),
          error: c.lastError ?? 'unknown',
          at: new Date(scheduler.now()).toISOString(),
        });
      }
      last = value;
    },
    error: () => {},
  });
}
