import type { SchedulerLike, Subscription } from 'rxjs';
import type { Actor, ActorRefFrom } from 'xstate';
import {
  type respawnMachine,
  type CliExit,
  type RespawnEvent,
  type RespawnInput,
  type RespawnLimits,
  type RespawnRequest,
  type RespawnState,
} from '../../machines/respawn.js';
import { respawnChildId, type supervisorMachine } from '../../machines/supervisor.js';
import { PanewardError } from '../errors.js';
import { scheduleLong } from '../internal/long-timer.js';
import type { Journal } from '../journal/journal.js';
import type { Spawned } from '../schemas/spawn.js';

/** Where an owned terminal's respawn chart runs: a child of the supervisor actor. */
export interface RespawnCharts {
  start(terminalId: string, input: RespawnInput): ActorRefFrom<typeof respawnMachine>;
  stop(terminalId: string): void;
}

/** The supervisor actor's respawn charts (`respawn:<terminal id>` among its children). */
export function supervisorRespawnCharts(
  supervisor: Actor<typeof supervisorMachine>,
): RespawnCharts {
  return {
    start: (terminalId, respawn) => {
      supervisor.send({ type: 'evt_owned', terminalId, respawn });
      const ref = supervisor.getSnapshot().children[respawnChildId(terminalId)];
      if (!ref) {
        throw new PanewardError('stopped', `the supervisor is stopping: ${terminalId} not watched`);
      }
      return ref as ActorRefFrom<typeof respawnMachine>;
    },
    // A supervisor that has ended stopped its children already.
    stop: (terminalId) => {
      if (supervisor.getSnapshot().status === 'active') {
        supervisor.send({ type: 'evt_released', terminalId });
      }
    },
  };
}

export interface RespawnDriverOptions {
  terminalId: string;
  /** Where its chart runs. */
  charts: RespawnCharts;
  policy: 'never' | 'on-failure';
  limits: RespawnLimits;
  scheduler: SchedulerLike;
  journal: Journal;
  /** Starts the CLI again in its pane (ends what the dead one left first); throws on failure. */
  respawn(request: Extract<RespawnRequest, { type: 'respawn' }>): Promise<{ resumed: boolean }>;
  /** Called after every step: the spawned view's `restart` may have changed. */
  changed(): void;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const exitView = (e: CliExit | null) =>
  e === null ? null : { status: e.status, signal: e.signal, at: iso(e.at) };

/**
 * Runs one spawned terminal's respawn chart (machines/respawn.ts): the chart decides, this keeps
 * its backoff timer on the scheduler, starts the CLI again when the chart asks, and journals the
 * restarts and the giving up. Nothing here decides whether a death is restarted.
 */
export class RespawnDriver {
  private readonly actor: ActorRefFrom<typeof respawnMachine>;
  private backoff: Subscription | null = null;
  /** Journal appends the step under way started. */
  private readonly writes: Array<Promise<unknown>> = [];
  private readonly off: { unsubscribe(): void };

  constructor(private readonly o: RespawnDriverOptions) {
    this.actor = o.charts.start(o.terminalId, { policy: o.policy, limits: o.limits });
    this.off = this.actor.on('*', (ev) => this.onRequest(ev));
  }

  /** The chart's state. */
  get state(): RespawnState {
    return this.actor.getSnapshot().value as RespawnState;
  }

  /** Whether the CLI's death would be looked at now (not while it waits, restarts or ends). */
  get watching(): boolean {
    return this.state === 'running';
  }

  /** Where restarts stand, as the spawned view shows them. */
  view(): Spawned['restart'] {
    const c = this.actor.getSnapshot().context;
    return {
      policy: c.policy,
      restarts: c.restarts,
      gaveUp: c.gaveUp === null ? null : { reason: c.gaveUp.reason, at: iso(c.gaveUp.at) },
      lastExit: exitView(c.lastExit),
    };
  }

  send(event: RespawnEvent): void {
    // A respawn that ends after the terminal was released has nobody to tell.
    if (this.actor.getSnapshot().status !== 'active') return;
    this.actor.send(event);
    // Whoever is told of the change finds its record in the journal already.
    const writes = this.writes.splice(0);
    if (writes.length === 0) this.o.changed();
    else void Promise.all(writes).finally(() => this.o.changed());
  }

  /** The supervisor stops or forgets the terminal: a waiting backoff ends with it. */
  release(): void {
    this.send({ type: 'evt_released' });
    this.off.unsubscribe();
    this.o.charts.stop(this.o.terminalId);
  }

  private onRequest(ev: RespawnRequest): void {
    const o = this.o;
    switch (ev.type) {
      case 'backoff.start':
        // The wait can be an hour: cancelled (and its timer with it) by the chart's exit.
        this.backoff = scheduleLong(
          o.scheduler,
          () => {
            this.backoff = null;
            this.send({ type: 'evt_backoff_elapsed' });
          },
          ev.delaySeconds * 1000,
        );
        break;
      case 'backoff.cancel':
        this.backoff?.unsubscribe();
        this.backoff = null;
        break;
      case 'respawn':
        void this.respawn(ev);
        break;
      case 'gave_up':
        this.writes.push(
          o.journal
            .append({
              kind: 'terminal.respawn_gave_up',
              terminalId: o.terminalId,
              restarts: ev.restarts,
              exitStatus: ev.exit.status,
              signal: ev.exit.signal,
              reason: ev.reason,
            })
            .catch(() => null),
        );
        break;
    }
  }

  private async respawn(ev: Extract<RespawnRequest, { type: 'respawn' }>): Promise<void> {
    const o = this.o;
    let resumed: boolean;
    try {
      ({ resumed } = await o.respawn(ev));
    } catch {
      this.send({ type: 'evt_respawn_failed' });
      return;
    }
    const at = o.scheduler.now();
    await o.journal
      .append({
        kind: 'terminal.respawned',
        terminalId: o.terminalId,
        attempt: ev.attempt,
        delaySeconds: ev.delaySeconds,
        exitStatus: ev.exit.status,
        signal: ev.exit.signal,
        resumed,
      })
      .catch(() => null);
    this.send({ type: 'evt_respawned', at });
  }
}
