import type { ActorRefFrom, EmittedFrom } from 'xstate';
import type { lastTurnMachine } from '../../machines/lastTurn.js';
import { normalizeProjection } from '../../machines/surface.js';
import type {
  TurnInfo,
  TurnPhaseContext,
  turnPhaseMachine,
  TurnPhaseState,
} from '../../machines/turnPhase.js';
import { ChartRunner, type InspectionHub } from '../kernel/chart-runner.js';
import { TimerOrder, type Timers } from '../kernel/timers.js';
import type { ChartTransition } from '../schemas/record.js';
import type { RecordEvent } from '../profiles/session-record.js';
import { TurnSignals } from '../schemas/signals.js';
import { sameData } from '../internal/same-data.js';
import type { HookTurnEvent } from '../hooks/events.js';
import type { witnessMachine } from '../../machines/witness.js';
import {
  framesMatter,
  successEvidence,
  type MarkerEvidence,
  type ObserverEnding,
  type ObserverRefusal,
  type OutcomeWitness,
  type WitnessDisagreement,
  type WitnessEvent,
  type WitnessRequest,
  type WitnessScreen,
  type WitnessState,
} from '../../machines/witness.js';
import {
  lastTurnOf,
  onOutcome,
  restoreLastTurn,
  type OutcomeWiring,
  type RestoredOutcome,
  type TurnLifecycle,
  type TurnSnapshot,
} from './turn-outcome.js';

export type { TurnLifecycle, TurnSnapshot, WitnessDisagreement };

/** One frame as the turn charts see it. */
export interface TurnFrameInput {
  /** Diagnostics are `available`: only then do the signals mean anything. */
  available: boolean;
  signals: TurnSignals;
  projectionText: string;
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
  /**
   * The witness chart, the terminal's child beside the turn-phase chart: who settles a turn;
   * the screen alone when it was started with no configuration.
   */
  witness: ActorRefFrom<typeof witnessMachine>;
  /** The screen and the record disagreed for longer than the window. */
  onDisagreement?: (d: WitnessDisagreement) => void;
}

const SETTLE_KEY = 'turn.settle';
const STALE_KEY = 'turn.stale';
const WITNESS_KEY = 'turn.witness';

/**
 * Feeds the turn-phase chart its frames, explicit submits and settle window, and forwards the
 * outcomes it reports to the last-turn chart. The rules are the charts': who settles a turn is
 * the witness chart's (machines/witness.ts), told every frame, settle window, marker and
 * outcome; this keeps time, hands out turn ids, sends the turn-phase chart the witness's
 * verdicts and reports what changed. Frames go on straight after a submit, and until the CLI
 * redraws they still show the last turn's outcome: the chart credits an interrupt or failure
 * marker to a turn only when it was not on screen at the frame before the turn was armed, or
 * went away and came back since (docs/statecharts.md §5).
 */
export class TurnDriver {
  private readonly phase: ChartRunner<ActorRefFrom<typeof turnPhaseMachine>>;
  private readonly last: ChartRunner<ActorRefFrom<typeof lastTurnMachine>>;
  private readonly witness: ActorRefFrom<typeof witnessMachine>;
  /** The witness chart has a configuration: outcomes may name their witness. */
  private readonly configured: boolean;
  private now = 0;
  /** The signals last checked, and what the check gave. */
  private signalsIn: unknown = null;
  private signalsOut: TurnSignals | null = null;
  private readonly off: Array<{ unsubscribe(): void }>;
  /** What the witness chart asked for during the event being sent to it. */
  private inbox: WitnessRequest[] = [];
  /** Who the next outcome is decided by, while a verdict of the witness is being sent. */
  private deciding: OutcomeWitness | null = null;
  /** The latest frame's signals: whether the screen reads ready (docs/witness.md). */
  private lastFrame: WitnessScreen['frame'] = null;
  /** When the latest turn started (it may have ended since). */
  private lastStartedAt: number | null = null;
  /** Events the turn-phase chart emitted so far. */
  private emitted = 0;
  /** The last frame sent, when it changed nothing, and the snapshot it left. */
  private quiet: {
    t: number;
    available: boolean;
    signals: TurnSignals;
    projection: string;
    snapshot: unknown;
  } | null = null;

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
    this.witness = o.witness;
    this.configured = o.witness.getSnapshot().context.config !== null;
    this.off = [
      // One listener for every event the chart emits (a listener each took about 100 bytes).
      o.turnPhase.on('*', (ev) => {
        this.onEmitted(ev);
        this.emitted++;
      }),
      this.witness.on('*', (request) => this.inbox.push(request)),
    ];
  }

  /** What the turn-phase chart asks for: its timers, and the turns it starts and ends. */
  private onEmitted(ev: EmittedFrom<typeof turnPhaseMachine>): void {
    const o = this.o;
    switch (ev.type) {
      case 'settle_window.start':
        o.timers.set(SETTLE_KEY, this.now + ev.seconds, TimerOrder.settle, (due) =>
          this.tell({ type: 'settle_elapsed', t: due, screen: this.screen() }),
        );
        return;
      case 'settle_window.cancel':
        o.timers.clear(SETTLE_KEY);
        return;
      case 'stale_window.start':
        o.timers.set(STALE_KEY, this.now + ev.seconds, TimerOrder.staleActive, (due) => {
          // A marker's ending waiting out its window decides first (the witness chart's rule);
          // the turn ends with no outcome only if it is still open.
          this.tell({ type: 'stale_elapsed', t: due, screen: this.screen() });
          if (this.current) this.send(due, { type: 'stale_active_elapsed', t: due });
        });
        return;
      case 'stale_window.cancel':
        o.timers.clear(STALE_KEY);
        return;
      case 'turn_abandoned':
      case 'turn_superseded':
        o.onTurn({
          kind: 'turn.ended',
          t: ev.at,
          turnId: ev.turn.id,
          source: ev.turn.source,
          outcome: 'none',
        });
        return;
      case 'outcome':
        onOutcome(this.outcomeWiring(), ev);
        return;
      case 'turn_started':
        this.lastStartedAt = ev.turn.startedAt;
        o.onTurn({ kind: 'turn.started', t: this.now, turn: ev.turn });
        return;
      default:
        return;
    }
  }

  /** Sends the witness chart one event, then does what it asked, in order. */
  private tell(event: WitnessEvent): void {
    const outer = this.inbox;
    const mine: WitnessRequest[] = (this.inbox = []);
    this.witness.send(event);
    this.inbox = outer;
    for (const r of mine) this.perform(r);
  }

  private perform(r: WitnessRequest): void {
    switch (r.type) {
      case 'window.start':
        this.o.timers.set(WITNESS_KEY, r.due, TimerOrder.witness, (due) => {
          this.now = due;
          this.tell({ type: 'window_elapsed', t: due, screen: this.screen() });
        });
        return;
      case 'window.cancel':
        this.o.timers.clear(WITNESS_KEY);
        return;
      case 'settle.cancel':
        this.o.timers.clear(SETTLE_KEY);
        return;
      case 'disagreement':
        this.o.onDisagreement?.(r.disagreement);
        return;
      case 'verdict':
        this.now = Math.max(this.now, r.t);
        this.deciding = r.by;
        try {
          this.send(r.t, { ...r.send, t: r.t });
        } finally {
          this.deciding = null;
        }
    }
  }

  /** The screen as the witness chart reads it. */
  private screen(): WitnessScreen {
    const c = this.phase.context;
    const e = c.evidence;
    const turn = c.current;
    return {
      turn: turn && { id: turn.id, startedAt: turn.startedAt },
      lastStartedAt: this.lastStartedAt,
      phase: this.phase.state as TurnPhaseState,
      settling: c.settling !== null,
      evidence: e !== null && (e.sawActive || e.projectionChanged),
      frame: this.lastFrame,
    };
  }

  private outcomeWiring(): OutcomeWiring {
    return {
      last: this.last,
      witness: this.witness,
      configured: this.configured,
      deciding: this.deciding,
      tell: (event) => this.tell(event),
      onTransition: this.o.onTransition,
      onTurn: this.o.onTurn,
    };
  }

  get current(): TurnInfo | null {
    return this.phase.context.current;
  }

  /** Runs the chart's priority chain for one frame. */
  frame(t: number, input: TurnFrameInput): void {
    // A repeated screen's reading hands over the same signals: checked once.
    if (input.signals !== this.signalsIn) {
      if (!sameData(input.signals, this.signalsIn)) {
        this.signalsOut = TurnSignals.parse(input.signals);
      }
      this.signalsIn = input.signals;
    }
    const signals = this.signalsOut!;
    this.lastFrame = { available: input.available, signals };
    const projection = normalizeProjection(input.projectionText);
    const quiet = this.quiet;
    if (
      quiet !== null &&
      quiet.signals === signals &&
      quiet.projection === projection &&
      quiet.available === input.available &&
      t >= quiet.t &&
      this.o.turnPhase.getSnapshot() === quiet.snapshot
    ) {
      // The same frame again, on a chart left as that frame left it: it would do the same.
      this.now = t;
    } else {
      this.sendFrame(t, input.available, signals, projection);
    }
    if (framesMatter(this.witness.getSnapshot().context)) {
      this.tell({ type: 'frame', t, screen: this.screen() });
    }
  }

  /**
   * Sends a frame, and remembers it when it changed nothing (no step, nothing emitted, the
   * context rebuilt with the same values): the next frame equal to it but for its time, sent to
   * the same snapshot, would change nothing either. The chart's guards and actions are pure,
   * and the only rules that read a frame's time match up to a deadline after a past moment
   * (`settled_reply_rewritten`, `settled_success_disproved`): a rule that did not match at one
   * time does not at a later one, and a rule that matched emitted an outcome. The event's
   * inferred turn id is read only when a turn is inferred, which changes the context. A
   * repeat is skipped before the chart whether or not an inspector watches: an inspector sees
   * the events the chart takes, and a skipped one it never takes.
   */
  private sendFrame(t: number, available: boolean, signals: TurnSignals, projection: string): void {
    const before = this.o.turnPhase.getSnapshot();
    const emitted = this.emitted;
    const steps = this.send(t, {
      type: 'frame',
      t,
      available,
      signals,
      projection,
      inferredTurnId: this.o.nextTurnId(),
    });
    const after = this.o.turnPhase.getSnapshot();
    this.quiet =
      !this.o.hub.everyEvent &&
      steps.length === 0 &&
      this.emitted === emitted &&
      after.status === 'active' &&
      after.value === before.value &&
      sameData(after.context, before.context)
        ? { t, available, signals, projection, snapshot: after }
        : null;
  }

  /** Whether the session record is followed (false: the screen alone witnesses). */
  recordAvailable(t: number, available: boolean): void {
    this.tell({ type: 'record_available', t, available, screen: this.screen() });
  }

  /** One event of the session record (docs/witness.md). */
  recordEvent(t: number, event: RecordEvent): void {
    this.tell({ type: 'record_event', t, event, screen: this.screen() });
  }

  /**
   * One event a CLI's hook told (docs/hooks.md): a third witness under the same rules as the
   * session record. Hooks need no finding: the first event makes them a witness.
   */
  hookEvent(t: number, event: HookTurnEvent): void {
    this.tell({ type: 'hook_event', t, event, screen: this.screen() });
  }

  /**
   * An ending a completion observer told (docs/witness.md): a marker witness under the same
   * rules as the session record, for the open turn only. Answers why it was not taken, or null
   * when it was: `not_current_turn` (no turn is open, or another one is), `already_ended` (an
   * observer already ended this turn), `surface` (the screen alone decides).
   */
  observerEnding(t: number, event: ObserverEnding): ObserverRefusal | null {
    this.tell({ type: 'observer_ending', t, event, screen: this.screen() });
    return this.witness.getSnapshot().context.refusal;
  }

  /** Whether the open turn has shown evidence of its own yet (activity, a changed transcript). */
  get turnHasEvidence(): boolean {
    const e = this.phase.context.evidence;
    return this.current !== null && e !== null && (e.sawActive || e.projectionChanged);
  }

  /** A prompt submitted through paneward: an explicit-input turn with this id. */
  armExplicit(t: number, turnId: string): void {
    this.tell({ type: 'turn_armed' });
    this.send(t, { type: 'turn_armed', t, turnId });
  }

  /** The witness chart's state (what it waits for). */
  get witnessState(): WitnessState {
    return this.witness.getSnapshot().value as WitnessState;
  }

  /** Puts the last-turn chart where the journal left it (docs/statecharts.md §5). */
  restoreLastTurn(facts: RestoredOutcome): void {
    restoreLastTurn(this.last, facts);
  }

  snapshot(): TurnSnapshot {
    const w = this.witness.getSnapshot().context;
    return {
      phase: this.phase.state as TurnPhaseState,
      current: this.current,
      lastTurn: lastTurnOf(this.last, this.configured && w.recordSeen ? w.lastWitness : null),
    };
  }

  stop(): void {
    this.o.timers.clear(SETTLE_KEY);
    this.o.timers.clear(STALE_KEY);
    this.o.timers.clear(WITNESS_KEY);
    for (const off of this.off) off.unsubscribe();
    this.phase.dispose();
    this.last.dispose();
  }

  private send(
    t: number,
    event: Parameters<ActorRefFrom<typeof turnPhaseMachine>['send']>[0],
  ): readonly unknown[] {
    this.now = t;
    return this.phase.send(event);
  }

  /**
   * The marker witnesses' evidence that the open turn ended with a success, or null: the payload
   * of the kernel's completion observer (a candidate completes at once, docs/statecharts.md §2).
   */
  recordSuccessEvidence(): MarkerEvidence | null {
    return successEvidence(this.witness.getSnapshot().context, this.screen());
  }
}
