import {
  filter,
  firstValueFrom,
  from,
  map,
  merge,
  timeout as rxTimeout,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { isPanewardError, PanewardError } from '../errors.js';
import type { TmuxArg } from '../observe/tmux-argv.js';
import type { Spawned } from '../schemas/spawn.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { newSessionArgs, newWindowArgs, type LaunchPlan } from './spawn-argv.js';

/** Opens the window (its session too when missing) holding the placeholder; its pane id. */
export async function openWindow(
  run: (args: readonly TmuxArg[]) => Promise<string>,
  plan: LaunchPlan,
): Promise<string> {
  const exists = await run(['has-session', '-t', `=${plan.session}`]).then(
    () => true,
    (error: unknown) => {
      if (isPanewardError(error) && error.code === 'tmux_missing') return false;
      throw error;
    },
  );
  const out = exists
    ? await run(newWindowArgs(plan))
    : await run(newSessionArgs(plan)).catch((error: unknown) => {
        // Another caller created it in between.
        if (isPanewardError(error) && /duplicate session/.test(error.message)) {
          return run(newWindowArgs(plan));
        }
        throw error;
      });
  const paneId = out.trim();
  if (!/^%\d+$/.test(paneId)) {
    throw new PanewardError('tmux_failed', `tmux answered no pane id: ${JSON.stringify(out)}`);
  }
  return paneId;
}

/** What waiting for a spawned terminal to be ready watches. */
export interface ReadyWatch {
  /** The id of each terminal whose restart view changed. */
  changed: Observable<string>;
  state$(id: string): Observable<TerminalState>;
  get(id: string): TerminalState;
  scheduler: SchedulerLike;
}

/**
 * Answers once the terminal is `ready` or `blocked` (a first-run question is the answer).
 * A CLI that died before it was ready (and is not being started again) or ran out of time is
 * an error naming the terminal, which stays attached so its screen can be read.
 */
export async function untilReady(
  on: ReadyWatch,
  id: string,
  /** The terminal's spawn record: its restart view is read as it changes. */
  spawned: Spawned,
  seconds: number,
): Promise<void> {
  const failed = on.changed.pipe(
    filter((t) => t === id),
    map(() => spawned.restart),
    filter((r) => r.gaveUp !== null || (r.policy === 'never' && r.lastExit !== null)),
    map(() => 'died' as const),
  );
  const ready = on.state$(id).pipe(
    filter((s) => s.readiness.status === 'ready' || s.readiness.status === 'blocked'),
    map(() => 'ready' as const),
  );
  const outcome = await firstValueFrom(
    merge(ready, failed).pipe(
      rxTimeout({
        first: seconds * 1000,
        scheduler: on.scheduler,
        with: () => from(['timeout' as const]),
      }),
    ),
    { defaultValue: 'timeout' as const },
  );
  if (outcome === 'ready') return;
  const state = on.get(id);
  const details = {
    terminalId: id,
    readiness: state.readiness.status,
    restart: structuredClone(spawned.restart),
  };
  if (outcome === 'timeout') {
    throw new PanewardError(
      'timeout',
      `spawn: field \`readyTimeoutSeconds\`: terminal ${id} was not ready within ${seconds} s (readiness ${state.readiness.status}); it stays attached`,
      { details },
    );
  }
  const exit = spawned.restart.lastExit;
  const how = exit?.signal ? `was killed by ${exit.signal}` : `exited with status ${exit?.status}`;
  throw new PanewardError(
    'not_ready',
    `spawn: terminal ${id}: the CLI ${how} before it was ready${spawned.restart.gaveUp ? `; ${spawned.restart.gaveUp.reason}` : ''}; it stays attached (its screen shows why)`,
    { details },
  );
}
