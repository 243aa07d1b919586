import {
  exhaustMap,
  filter,
  from,
  interval,
  merge,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { TmuxArg } from '../observe/tmux-argv.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { PaneFacts } from './pane-facts.js';
import type { RespawnDriver } from './respawn.js';

/** How often a spawned pane is asked whether its CLI still runs, besides when its state says so. */
const DEATH_POLL_MS = 5000;
/** How long a gone process may wait for tmux to mark its pane dead before it is decided without. */
const UNREAPED_GRACE_MS = 3000;
/** How long a process whose terminal closed may take to end before it is decided without it. */
const EXITING_GRACE_MS = 15_000;
/** How soon to look again meanwhile. */
const UNREAPED_RECHECK_MS = 100;

/** A spawned terminal as its death watch sees it. */
export interface Watched {
  /** The respawn chart: whether a death is restarted, when, and when restarts give up. */
  respawn: RespawnDriver;
  /** When the CLI's process was first seen gone before tmux had marked the pane dead. */
  goneSince: number | null;
}

/** What watching a spawned pane for its CLI's death needs of the spawner. */
export interface DeathWatch {
  /** The terminal's bookkeeping while paneward owns it. */
  owned(id: string): Watched | undefined;
  state$(id: string): Observable<TerminalState>;
  scheduler: SchedulerLike;
  run(args: readonly TmuxArg[]): Promise<string>;
  paneFacts(paneId: string): Promise<PaneFacts | null>;
}

/**
 * Asks the pane whether its CLI still runs whenever the terminal's state says its process is
 * down, and every few seconds besides (a death the state has not shown yet), and acts on it.
 */
export function watchDeath(on: DeathWatch, id: string, paneId: string): Subscription {
  const down = on
    .state$(id)
    .pipe(
      filter(
        (s) => s.diagnostics.availability === 'tui_down' || s.diagnostics.process === 'tui_down',
      ),
    );
  return merge(down, interval(DEATH_POLL_MS, on.scheduler))
    .pipe(exhaustMap(() => from(checkUntilDecided(on, id, paneId).catch(() => undefined))))
    .subscribe();
}

/** Checks, and again shortly while the process is gone but tmux has not said how it ended. */
async function checkUntilDecided(on: DeathWatch, id: string, paneId: string): Promise<void> {
  while (await check(on, id, paneId)) {
    await new Promise<void>((resolve) => {
      on.scheduler.schedule(() => resolve(), UNREAPED_RECHECK_MS);
    });
  }
}

/** Acts on the pane's facts; true when it must look again shortly (see above). */
async function check(on: DeathWatch, id: string, paneId: string): Promise<boolean> {
  const o = on.owned(id);
  if (!o || !o.respawn.watching) return false;
  const facts = await on.paneFacts(paneId);
  if (facts === null || !facts.dead) return false;
  // The process can be gone (or the pane shown dead) a moment before tmux has reaped it and
  // knows its exit status: a clean exit would read as an unknown one (and be restarted as a
  // failure). Wait for tmux's word, up to a bound, before deciding without it.
  if (!facts.tmuxDead) {
    const now = on.scheduler.now();
    if (o.goneSince === null) {
      // tmux 3.3a can miss the end of a CLI's process (Claude Code's stays a zombie, unreaped,
      // until the server reaps some other child): a job of its own ending makes it reap them all.
      await on.run(['run-shell', 'true']).catch(() => undefined);
    }
    o.goneSince ??= now;
    const grace = facts.processAlive ? EXITING_GRACE_MS : UNREAPED_GRACE_MS;
    if (now - o.goneSince < grace) return true;
  }
  o.goneSince = null;
  // The chart decides: ended (a clean exit, or no restarts), a restart after its backoff, or
  // giving up at the limit (machines/respawn.ts).
  if (!o.respawn.watching) return false;
  o.respawn.send({
    type: 'evt_cli_died',
    status: facts.status,
    signal: facts.signal,
    at: on.scheduler.now(),
  });
  return false;
}
