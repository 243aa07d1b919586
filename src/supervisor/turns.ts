import { EmptyError, filter, firstValueFrom, from, timeout as rxTimeout } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { commandError } from '../terminal/typing.js';
import type { TurnResult } from './options.js';

/** What waiting for a turn needs of the supervisor. */
export interface TurnWait {
  scheduler: SchedulerLike;
  /** How long the turn's own outcome may take to settle after its completion ended. */
  graceMs: number;
  /** The terminal's state now. */
  current(): TerminalState;
}

/**
 * Waits for a turn's completion actor to end (`timeoutMs`, default 10 minutes), then for the
 * turn's own outcome (at most `graceMs`): by the time its completion has ended, the pane may
 * already show the next turn's (an agent that works again after its reply), so the turn's own
 * outcome is remembered as it settles.
 */
export async function waitForTurn(
  states: Observable<TerminalState>,
  terminalId: string,
  turnId: string,
  opts: { timeoutMs?: number; signal?: AbortSignal },
  w: TurnWait,
): Promise<Omit<TurnResult, 'payload'>> {
  let own: TerminalState['lastTurn'] | null = null;
  const watchOwn = states.subscribe((s) => {
    if (s.lastTurn.turnId === turnId) own = s.lastTurn;
  });
  const ownOutcome = () => own;
  try {
    const ended = (s: TerminalState) =>
      s.completion?.turnId === turnId &&
      (s.completion.status === 'completed' || s.completion.status === 'failed');
    const wait = firstValueFrom(
      states.pipe(
        filter(ended),
        rxTimeout({
          first: opts.timeoutMs ?? 600_000,
          scheduler: w.scheduler,
          with: () => {
            throw new PanewardError('timeout', `turn ${turnId} did not finish in time`);
          },
        }),
      ),
    );
    const endedState = await abortable(stoppedIfEmpty(wait, terminalId, turnId), opts.signal);
    const settled = await abortable(
      firstValueFrom(
        states.pipe(
          filter(
            (s) =>
              ownOutcome() !== null ||
              s.lastTurn.turnId === turnId ||
              s.turn.current?.id !== turnId,
          ),
          rxTimeout({
            first: w.graceMs,
            scheduler: w.scheduler,
            with: () => from([w.current()]),
          }),
        ),
        { defaultValue: endedState },
      ),
      opts.signal,
    );
    const completion = (settled.completion?.turnId === turnId ? settled : endedState).completion!;
    return {
      turnId,
      result: completion.status === 'failed' ? 'failed' : 'completed',
      completion,
      lastTurn: ownOutcome() ?? settled.lastTurn,
    };
  } finally {
    watchOwn.unsubscribe();
  }
}

/** The state stream ended (terminal detached or supervisor stopped) before the turn did. */
async function stoppedIfEmpty<T>(p: Promise<T>, terminalId: string, turnId: string): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof EmptyError) {
      throw new PanewardError(
        'stopped',
        `terminal ${terminalId} stopped before turn ${turnId} finished`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

/** A command's outcome, its failure always a PanewardError. */
export async function answered<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (error) {
    throw commandError(error);
  }
}

function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new PanewardError('aborted', 'aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new PanewardError('aborted', 'aborted', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
