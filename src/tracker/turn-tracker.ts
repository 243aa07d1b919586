import { lastTurnMachine, type LastTurnEvent, type TurnSource } from '../../machines/lastTurn.js';
import { turnPhaseMachine, type TurnPhaseEvent } from '../../machines/turnPhase.js';
import { MachineRunner, type Step } from '../kernel/internal/runner.js';
import { normalizeProjection } from '../kernel/normalize.js';
import { TimerOrder, type Timers } from '../kernel/timers.js';
import { TurnSignals } from '../schemas/signals.js';

export type TurnPhase = 'unknown' | 'ready' | 'active';
export type LastTurnResult = 'none' | 'success' | 'interrupted' | 'known_failure';

/** The running turn. */
export interface TurnInfo {
  id: string;
  source: TurnSource;
  /** Observation time (seconds) it was armed. */
  startedAt: number;
}

/** One state change of the turn-phase or last-turn machine, with the rule that caused it. */
export interface TurnRecord extends Step {
  t: number;
  machine: 'turnPhase' | 'lastTurn';
  rule: string;
  turnId?: string;
}

export interface TurnTrackerSnapshot {
  phase: TurnPhase;
  current: TurnInfo | null;
  lastTurn: {
    result: LastTurnResult;
    source: TurnSource | 'none';
    turnId: string | null;
    at: number | null;
  };
  /** When the pending success's settle window started, if one is pending. */
  settlingSince: number | null;
}

/** One frame as the turn tracker sees it. */
export interface TurnFrame {
  /** Diagnostics are `available`: only then do the signals mean anything. */
  available: boolean;
  signals: TurnSignals;
  projectionText: string;
}

interface TurnEvidence {
  projectionAtArm: string;
  sawActive: boolean;
  projectionChanged: boolean;
}

const PHASE_EVENT: Record<TurnPhase, Partial<Record<TurnPhase, TurnPhaseEvent['type']>>> = {
  unknown: { ready: 'evt_ready_posture', active: 'evt_turn_started' },
  ready: { active: 'evt_turn_started', unknown: 'evt_posture_lost' },
  active: { ready: 'evt_turn_finished', unknown: 'evt_posture_lost' },
};

const SETTLE_KEY = 'turn.settle';

/**
 * The profile-independent turn tracker (statecharts.md §5): runs the per-frame priority chain
 * over a profile's turn signals, owns the settle window, and feeds the turn-phase and
 * last-turn machines. A turn is `explicit_input` when armed by a submit, `surface_inference`
 * when the screen showed activity with no turn armed. Outcomes count only for a turn that has
 * evidence of its own (activity seen, or the transcript changed since it was armed), so a
 * marker left on screen by an earlier turn is never reported again.
 */
export class TurnTracker {
  private readonly phase = new MachineRunner(turnPhaseMachine, undefined);
  private readonly last = new MachineRunner(lastTurnMachine, undefined);
  private current: TurnInfo | null = null;
  private evidence: TurnEvidence | null = null;
  private settle: { signature: string; since: number } | null = null;
  /** The turn whose success settled, kept until another turn starts, for retraction. */
  private settled: { turn: TurnInfo; projection: string } | null = null;
  private lastProjection = '';
  private lastReadyPosture: TurnSignals['readyPosture'] = 'unknown';
  private inferred = 0;

  constructor(
    private readonly timers: Timers,
    private readonly settleSeconds: number,
    private readonly emit: (record: TurnRecord) => void,
  ) {}

  /** Arms an explicit-input turn (a prompt was submitted through paneward). */
  armExplicit(t: number, id: string): void {
    this.cancelSettle();
    this.settled = null;
    this.current = { id, source: 'explicit_input', startedAt: t };
    this.evidence = {
      projectionAtArm: this.lastProjection,
      sawActive: false,
      projectionChanged: false,
    };
    this.setPhase(t, 'active', 'explicit_input_armed');
  }

  /** Runs the priority chain for one frame. */
  frame(t: number, input: TurnFrame): void {
    if (!input.available) {
      this.cancelSettle();
      this.setPhase(t, 'unknown', 'diagnostics_degraded');
      return;
    }
    const s = TurnSignals.parse(input.signals);
    const projection = normalizeProjection(input.projectionText);
    const active = s.activeReasons.length > 0;
    this.lastProjection = projection;
    this.lastReadyPosture = s.readyPosture;

    this.maybeRetract(t, s, projection, active);

    if (this.current && this.evidence) {
      this.evidence.sawActive ||= active;
      this.evidence.projectionChanged ||= projection !== this.evidence.projectionAtArm;
    }
    const turn = this.current;
    const hasEvidence =
      !!this.evidence && (this.evidence.sawActive || this.evidence.projectionChanged);
    // An ambiguous interactive surface (menus, pickers) loses the ready posture (§4).
    const idlePhase: TurnPhase = s.readyPosture === 'yes' && !s.ambiguous ? 'ready' : 'unknown';

    // (a) a draft over an old interrupted/failure marker: the marker is stale.
    if (
      !turn &&
      s.editingInput === 'yes' &&
      s.acceptingInput === 'yes' &&
      (s.interrupted || s.knownFailure)
    ) {
      this.cancelSettle();
      this.setPhase(t, idlePhase, 'a_stale_marker_under_draft');
      return;
    }
    // A turn just armed whose screen has not moved yet: what is on screen is the last turn's.
    if (turn && !hasEvidence) {
      this.cancelSettle();
      this.setPhase(t, 'active', 'turn_armed_no_evidence');
      return;
    }
    // A turn that worked and then vanished from the transcript, its prompt handed back as a
    // draft, was withdrawn: an interrupt before any reply (Claude Code does this on Escape).
    const withdrawn =
      !!turn &&
      !active &&
      !!this.evidence?.sawActive &&
      s.editingInput === 'yes' &&
      projection === this.evidence.projectionAtArm;
    // (b) interrupted, (c) known failure.
    if (s.interrupted || s.knownFailure || withdrawn) {
      const interrupted = s.interrupted || withdrawn;
      this.cancelSettle();
      const rule =
        withdrawn && !s.interrupted
          ? 'b_turn_withdrawn'
          : interrupted
            ? 'b_interrupted'
            : 'c_known_failure';
      if (turn) {
        this.outcome(t, interrupted ? 'evt_interrupted' : 'evt_known_failure', turn, rule);
        this.endTurn();
      }
      this.setPhase(t, 'ready', rule);
      return;
    }
    // (d) active evidence.
    if (active) {
      this.cancelSettle();
      if (!turn) {
        this.inferred += 1;
        this.current = {
          id: `inferred-${this.inferred}`,
          source: 'surface_inference',
          startedAt: t,
        };
        this.evidence = { projectionAtArm: projection, sawActive: true, projectionChanged: false };
      }
      this.setPhase(t, 'active', 'd_active_evidence');
      return;
    }
    // (e) success candidate: needs an armed turn, then a settle window.
    if (s.successCandidate && turn) {
      if (s.editingInput === 'yes') {
        this.cancelSettle();
        return;
      }
      const signature = JSON.stringify([
        projection,
        s.readyPosture,
        s.acceptingInput,
        s.chatContext,
      ]);
      if (!this.settle || this.settle.signature !== signature) {
        this.settle = { signature, since: t };
        this.timers.set(SETTLE_KEY, t + this.settleSeconds, TimerOrder.settle, (due) =>
          this.onSettled(due),
        );
      }
      return;
    }
    // (f) default.
    this.cancelSettle();
    this.setPhase(t, turn ? 'active' : idlePhase, 'f_default');
  }

  snapshot(): TurnTrackerSnapshot {
    const ctx = this.last.actor.getSnapshot().context;
    return {
      phase: this.phase.state as TurnPhase,
      current: this.current,
      lastTurn: {
        result: this.last.state as LastTurnResult,
        source: ctx.source,
        turnId: ctx.turnId,
        at: ctx.at,
      },
      settlingSince: this.settle?.since ?? null,
    };
  }

  stop(): void {
    this.cancelSettle();
    this.phase.stop();
    this.last.stop();
  }

  /** A settled success is withdrawn when its turn visibly goes on (same turn, no new input). */
  private maybeRetract(t: number, s: TurnSignals, projection: string, active: boolean): void {
    if (!this.settled || this.current) return;
    const resumed = active;
    const rewritten =
      projection !== this.settled.projection &&
      s.editingInput !== 'yes' &&
      !s.interrupted &&
      !s.knownFailure;
    if (!resumed && !rewritten) return;
    const turn = this.settled.turn;
    this.settled = null;
    this.outcome(t, 'evt_success_retracted', turn, resumed ? 'retract_resumed' : 'retract_changed');
    this.current = turn;
    this.evidence = {
      projectionAtArm: projection,
      sawActive: resumed,
      projectionChanged: rewritten,
    };
  }

  private onSettled(due: number): void {
    const turn = this.current;
    this.settle = null;
    if (!turn) return;
    this.outcome(due, 'evt_success_settled', turn, 'e_success_settled');
    this.settled = { turn, projection: this.lastProjection };
    this.endTurn();
    this.setPhase(due, this.lastReadyPosture === 'yes' ? 'ready' : 'unknown', 'e_success_settled');
  }

  private outcome(t: number, type: LastTurnEvent['type'], turn: TurnInfo, rule: string): void {
    const steps = this.last.send({ type, turnId: turn.id, source: turn.source, at: t });
    // A new turn with the same outcome is a self transition: still an outcome worth recording.
    const records =
      steps.length > 0 ? steps : [{ from: this.last.state, to: this.last.state, event: type }];
    for (const step of records)
      this.emit({ t, machine: 'lastTurn', ...step, rule, turnId: turn.id });
  }

  private endTurn(): void {
    this.current = null;
    this.evidence = null;
  }

  private setPhase(t: number, to: TurnPhase, rule: string): void {
    const from = this.phase.state as TurnPhase;
    const type = PHASE_EVENT[from][to];
    if (!type) return;
    for (const step of this.phase.send({ type })) {
      this.emit({
        t,
        machine: 'turnPhase',
        ...step,
        rule,
        ...(this.current ? { turnId: this.current.id } : {}),
      });
    }
  }

  private cancelSettle(): void {
    if (!this.settle) return;
    this.settle = null;
    this.timers.clear(SETTLE_KEY);
  }
}
