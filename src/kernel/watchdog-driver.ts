import type { ActorRefFrom, EmittedFrom } from 'xstate';
import type { watchdogMachine, WatchdogRequest } from '../../machines/watchdog.js';
import { ChartRunner, type InspectionHub, type Step } from './chart-runner.js';
import { TimerOrder, type Timers } from './timers.js';

export type WatchdogCancelRequest = Extract<WatchdogRequest, { type: 'session.cancel' }>;

export interface WatchdogDriverOptions {
  actor: ActorRefFrom<typeof watchdogMachine>;
  hub: InspectionHub;
  timers: Timers;
  key: string;
  /** The chart asked to cancel the session (journal the record first, then interrupt). */
  cancel: (request: WatchdogCancelRequest) => void;
  onStep?: (step: Step, t: number) => void;
}

/**
 * Keeps the watchdog chart's deadline on the terminal's timers and hands its cancel requests
 * to the runtime. A window restored from the journal is replayed into the chart with the
 * same events, and what the chart asks for while replaying is not done again: a fired
 * window never fires twice.
 */
export class WatchdogDriver {
  private readonly runner: ChartRunner<ActorRefFrom<typeof watchdogMachine>>;
  private replaying = false;
  private now = 0;
  private readonly off: { unsubscribe(): void };

  constructor(private readonly o: WatchdogDriverOptions) {
    this.runner = new ChartRunner(o.actor, o.hub);
    // One listener for every event the chart emits (a listener each took about 100 bytes).
    this.off = o.actor.on('*', (ev) => this.onEmitted(ev));
  }

  /** What the chart asks for: its deadline timer, and a session cancelled. */
  private onEmitted(ev: EmittedFrom<typeof watchdogMachine>): void {
    const o = this.o;
    if (ev.type === 'deadline.start') {
      o.timers.set(o.key, ev.due, TimerOrder.watchdog, (due) =>
        this.send(due, { type: 'evt_wall_clock_exceeded', at: due }),
      );
    } else if (ev.type === 'deadline.cancel') o.timers.clear(o.key);
    else if (ev.type === 'session.cancel' && !this.replaying) o.cancel(ev);
  }

  get state(): string {
    return this.runner.state;
  }

  get budgetSeconds(): number {
    return this.runner.context.budgetSeconds;
  }

  /** Start of the current window (observation seconds), or null. */
  get sessionStartedAt(): number | null {
    return this.runner.context.sessionStartedAt;
  }

  /** Opens the session's first window at `at`. */
  start(at: number): void {
    this.send(at, { type: 'evt_session_started', at });
  }

  /** Replays a window the journal recorded: its start, and whether it already fired. */
  restore(t: number, window: { sessionStartedAt: number; fired: boolean }): void {
    this.replaying = true;
    try {
      this.send(t, { type: 'evt_session_started', at: window.sessionStartedAt });
      if (window.fired) this.send(t, { type: 'evt_wall_clock_exceeded', at: t });
    } finally {
      this.replaying = false;
    }
  }

  /** An explicit resume: a fresh window from `at`. */
  resume(at: number): void {
    this.send(at, { type: 'evt_session_resumed', at });
  }

  finish(t: number): void {
    this.send(t, { type: 'evt_session_finished' });
  }

  stop(): void {
    this.o.timers.clear(this.o.key);
    this.off.unsubscribe();
    this.runner.dispose();
  }

  private send(
    t: number,
    event: Parameters<ActorRefFrom<typeof watchdogMachine>['send']>[0],
  ): void {
    this.now = t;
    for (const step of this.runner.send(event)) this.o.onStep?.(step, this.now);
  }
}
