import type { ActorRefFrom } from 'xstate';
import type { lastTurnMachine, LastTurnState } from '../../machines/lastTurn.js';
import { normalizeProjection } from '../../machines/surface.js';
import type {
  TurnInfo,
  TurnPhaseContext,
  TurnPhaseEmitted,
  turnPhaseMachine,
  TurnPhaseState,
  TurnSource,
} from '../../machines/turnPhase.js';
import { ChartRunner, type InspectionHub } from '../kernel/chart-runner.js';
import { TimerOrder, type Timers } from '../kernel/timers.js';
import type { ChartTransition } from '../schemas/record.js';
import { TurnSignals } from '../schemas/signals.js';

/** One frame as the turn charts see it. */
export interface TurnFrameInput {
  /** Diagnostics are `available`: only then do the signals mean anything. */
  available: boolean;
  signals: TurnSignals;
  projectionText: string;
}

/** A turn began, ended with an outcome (or none: another took its place), or was reopened. */
export type TurnLifecycle =
  | { kind: 'turn.started'; t: number; turn: TurnInfo }
  | {
      kind: 'turn.ended';
      t: number;
      turnId: string;
      source: TurnSource;
      outcome: 'success' | 'interrupted' | 'known_failure' | 'none';
    }
  | { kind: 'turn.reopened'; t: number; turn: TurnInfo };

export interface TurnSnapshot {
  phase: TurnPhaseState;
  current: TurnInfo | null;
  lastTurn: {
    result: LastTurnState;
    source: TurnSource | 'none';
    turnId: string | null;
    at: number | null;
  };
}

export interface TurnDriverOptions {
  turnPhase: ActorRefFrom<typeof turnPhaseMachine>;
  lastTurn: ActorRefFrom<typeof lastTurnMachine>;
  hub: InspectionHub;
  timers: Timers;
  /** The id the next turn inferred from the screen takes. */
  nextTurnId: () => string;
  onTransition: (t: number, transition: ChartTransition) => void;
  onTurn: (event: TurnLifecycle) => void;
}

const OUTCOME_OF = {
  evt_success_settled: 'success',
  evt_interrupted: 'interrupted',
  evt_known_failure: 'known_failure',
} as const;

const SETTLE_KEY = 'turn.settle';
const STALE_KEY = 'turn.stale';

/**
 * Feeds the turn-phase chart its frames, explicit submits and settle window, and forwards the
 * outcomes it reports to the last-turn chart. The rules are the charts'; this keeps time,
 * hands out turn ids and reports what changed. Frames go on straight after a submit, and until
 * the CLI redraws they still show the last turn's outcome: the chart credits an interrupt or
 * failure marker to a turn only when it was not on screen at the frame before the turn was
 * armed, or went away and came back since (docs/statecharts.md §5).
 */
export class TurnDriver {
  private readonly phase: ChartRunner<ActorRefFrom<typeof turnPhaseMachine>>;
  private readonly last: ChartRunner<ActorRefFrom<typeof lastTurnMachine>>;
  private now = 0;
  /** The signals last checked, and what the check gave. */
  private signalsIn: unknown = null;
  private signalsOut: TurnSignals | null = null;
  private readonly subs: Array<{ unsubscribe(): void }> = [];

  constructor(private readonly o: TurnDriverOptions) {
    this.phase = new ChartRunner(o.turnPhase, o.hub, (step, context) => {
      // The turn a step starts is in the context it leaves; the one it ends, in the one before.
      const turn = (context as TurnPhaseContext).current ?? this.current;
      o.onTransition(this.now, {
        machine: 'turnPhase',
        ...step,
        ...(turn ? { turnId: turn.id } : {}),
      });
    });
    this.last = new ChartRunner(o.lastTurn, o.hub);
    this.subs.push(
      o.turnPhase.on('settle_window.start', (ev) =>
        o.timers.set(SETTLE_KEY, this.now + ev.seconds, TimerOrder.settle, (due) =>
          this.send(due, { type: 'settle_window_elapsed', t: due }),
        ),
      ),
      o.turnPhase.on('settle_window.cancel', () => o.timers.clear(SETTLE_KEY)),
      o.turnPhase.on('stale_window.start', (ev) =>
        o.timers.set(STALE_KEY, this.now + ev.seconds, TimerOrder.staleActive, (due) =>
          this.send(due, { type: 'stale_active_elapsed', t: due }),
        ),
      ),
      o.turnPhase.on('stale_window.cancel', () => o.timers.clear(STALE_KEY)),
      o.turnPhase.on('turn_abandoned', (ev) =>
        o.onTurn({
          kind: 'turn.ended',
          t: ev.at,
          turnId: ev.turn.id,
          source: ev.turn.source,
          outcome: 'none',
        }),
      ),
      o.turnPhase.on('outcome', (ev) => this.onOutcome(ev)),
      o.turnPhase.on('turn_started', (ev) =>
        o.onTurn({ kind: 'turn.started', t: this.now, turn: ev.turn }),
      ),
      o.turnPhase.on('turn_superseded', (ev) =>
        o.onTurn({
          kind: 'turn.ended',
          t: ev.at,
          turnId: ev.turn.id,
          source: ev.turn.source,
          outcome: 'none',
        }),
      ),
    );
  }

  get current(): TurnInfo | null {
    return this.phase.context.current;
  }

  /** Runs the chart's priority chain for one frame. */
  frame(t: number, input: TurnFrameInput): void {
    // A repeated screen's reading hands over the same signals: checked once.
    if (input.signals !== this.signalsIn) {
      this.signalsOut = TurnSignals.parse(input.signals);
      this.signalsIn = input.signals;
    }
    const signals = this.signalsOut!;
    this.send(t, {
      type: 'frame',
      t,
      available: input.available,
      signals,
      projection: normalizeProjection(input.projectionText),
      inferredTurnId: this.o.nextTurnId(),
    });
  }

  /** A prompt submitted through paneward: an explicit-input turn with this id. */
  armExplicit(t: number, turnId: string): void {
    this.send(t, { type: 'turn_armed', t, turnId });
  }

  /**
   * Puts the last-turn chart where the journal left it. Nothing is reported: outcomes are
   * reported from the turn-phase chart's `outcome` events, and this sends none.
   */
  restoreLastTurn(facts: {
    result: 'success' | 'interrupted' | 'known_failure';
    source: TurnSource;
    turnId: string;
    at: number;
  }): void {
    const type = (
      {
        success: 'evt_success_settled',
        interrupted: 'evt_interrupted',
        known_failure: 'evt_known_failure',
      } as const
    )[facts.result];
    this.last.send({ type, turnId: facts.turnId, source: facts.source, at: facts.at });
  }

  snapshot(): TurnSnapshot {
    const ctx = this.last.context;
    return {
      phase: this.phase.state as TurnPhaseState,
      current: this.current,
      lastTurn: {
        result: this.last.state as LastTurnState,
        source: ctx.source,
        turnId: ctx.turnId,
        at: ctx.at,
      },
    };
  }

  stop(): void {
    this.o.timers.clear(SETTLE_KEY);
    this.o.timers.clear(STALE_KEY);
    for (const s of this.subs) s.unsubscribe();
    this.phase.dispose();
    this.last.dispose();
  }

  private send(
    t: number,
    event: Parameters<ActorRefFrom<typeof turnPhaseMachine>['send']>[0],
  ): void {
    this.now = t;
    this.phase.send(event);
  }

  private onOutcome(ev: Extract<TurnPhaseEmitted, { type: 'outcome' }>): void {
    const steps = this.last.send({
      type: ev.outcome,
      turnId: ev.turnId,
      source: ev.source,
      at: ev.at,
    });
    // A new turn with the same outcome is a self transition: still an outcome worth recording.
    const state = this.last.state;
    for (const step of steps.length > 0 ? steps : [{ from: state, to: state, event: ev.outcome }]) {
      this.o.onTransition(ev.at, {
        machine: 'lastTurn',
        ...step,
        rule: ev.rule,
        turnId: ev.turnId,
      });
    }
    if (ev.outcome === 'evt_success_retracted') {
      const turn = { id: ev.turnId, source: ev.source, startedAt: ev.startedAt };
      this.o.onTurn({ kind: 'turn.reopened', t: ev.at, turn });
    } else {
      this.o.onTurn({
        kind: 'turn.ended',
        t: ev.at,
        turnId: ev.turnId,
        source: ev.source,
        outcome: OUTCOME_OF[ev.outcome],
      });
    }
  }
}
