import type { ActorRefFrom, EmittedFrom } from 'xstate';
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
import type { RecordEvent } from '../profiles/session-record.js';
import { TurnSignals } from '../schemas/signals.js';
import { sameData } from '../internal/same-data.js';
import type { HookTurnEvent } from '../hooks/events.js';
import {
  foldHookEvent,
  foldObserverEnding,
  foldRecordEvent,
  markerTells,
  outcomeEventOf,
  RECORD_TURN_SLACK_SECONDS,
  type MarkerEvidence,
  type ObserverEnding,
  type OutcomeWitness,
  type RecordTurn,
  type WitnessConfig,
} from './witness.js';

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
      /** Which witness decided the outcome (absent for `none`). */
      witness?: OutcomeWitness;
      /** The session record's evidence for it, when the record took part. */
      record?: { file: string; offset: number; event: string };
      /** The hook's event that told it, when a hook took part (docs/hooks.md). */
      hook?: { event: string };
      /** The completion observer that told it, when one took part (docs/witness.md). */
      observer?: { name: string };
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
    /**
     * Which witness decided it; only with a completion witness set up, and not for an outcome
     * restored from the journal.
     */
    witness?: OutcomeWitness;
  };
}

/** The screen and the session record disagreed for longer than the window (docs/witness.md). */
export interface WitnessDisagreement {
  t: number;
  turnId: string;
  /** What the record said; `open` when it had not ended the turn. */
  record: 'success' | 'interrupted' | 'known_failure' | 'open';
  /** What the screen showed: the turn phase and whether a success candidate was settling. */
  screen: { phase: TurnPhaseState; successCandidate: boolean };
  /** Who decided in the end. */
  decided: OutcomeWitness;
  evidence: MarkerEvidence | null;
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
  /** Completion authority; the screen alone when absent. */
  witness?: WitnessConfig;
  /** The screen and the record disagreed for longer than the window. */
  onDisagreement?: (d: WitnessDisagreement) => void;
}

const OUTCOME_OF = {
  evt_success_settled: 'success',
  evt_interrupted: 'interrupted',
  evt_known_failure: 'known_failure',
} as const;

const SETTLE_KEY = 'turn.settle';
const STALE_KEY = 'turn.stale';
const WITNESS_KEY = 'turn.witness';

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
  private readonly off: { unsubscribe(): void };
  /** The session record is being followed (found, and its reader has not stepped aside). */
  private recordLive = false;
  /**
   * The record was found, or a hook told an event, at least once: from then on each outcome
   * names its witness.
   */
  private recordSeen = false;
  /** The latest turn as the session record tells it, and as the CLI's hooks tell it. */
  private readonly markers: Record<'record' | 'hook' | 'observer', RecordTurn | null> = {
    record: null,
    hook: null,
    observer: null,
  };
  /** The screen's settle window ran out while the record's turn was still open. */
  private heldSettle = false;
  /** Who the next outcome is decided by, while the driver itself sends the event. */
  private deciding: OutcomeWitness | null = null;
  private lastWitness: OutcomeWitness | null = null;
  /** The latest frame's signals: whether the screen reads ready (docs/witness.md). */
  private lastFrame: { available: boolean; signals: TurnSignals } | null = null;
  /** When the latest turn started (it may have ended since). */
  private lastStartedAt: number | null = null;
  /** The latest outcome the screen decided alone, which the record may yet confirm. */
  private screenOnly: { startedAt: number; reason: string; at: number } | null = null;
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
    // One listener for every event the chart emits (a listener each took about 100 bytes).
    this.off = o.turnPhase.on('*', (ev) => {
      this.onEmitted(ev);
      this.emitted++;
    });
  }

  /** What the turn-phase chart asks for: its timers, and the turns it starts and ends. */
  private onEmitted(ev: EmittedFrom<typeof turnPhaseMachine>): void {
    const o = this.o;
    switch (ev.type) {
      case 'settle_window.start':
        o.timers.set(SETTLE_KEY, this.now + ev.seconds, TimerOrder.settle, (due) =>
          this.settleElapsed(due),
        );
        return;
      case 'settle_window.cancel':
        o.timers.clear(SETTLE_KEY);
        return;
      case 'stale_window.start':
        o.timers.set(STALE_KEY, this.now + ev.seconds, TimerOrder.staleActive, (due) =>
          this.send(due, { type: 'stale_active_elapsed', t: due }),
        );
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
        this.onOutcome(ev);
        return;
      case 'turn_started':
        this.lastStartedAt = ev.turn.startedAt;
        o.onTurn({ kind: 'turn.started', t: this.now, turn: ev.turn });
        return;
      default:
        return;
    }
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
    this.agreeWithRecord(t);
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
    this.now = Math.max(this.now, t);
    this.recordLive = available;
    if (available) {
      this.recordSeen = true;
      return;
    }
    this.markers.record = null;
    this.o.timers.clear(WITNESS_KEY);
    // A success held for the record goes ahead on the screen's word.
    if (this.heldSettle) this.releaseHeld(t, 'surface');
  }

  /** One event of the session record (docs/witness.md). */
  recordEvent(t: number, event: RecordEvent): void {
    const w = this.o.witness;
    if (!w || w.authority === 'surface' || !this.recordLive) return;
    this.now = Math.max(this.now, t);
    const before = this.markers.record;
    this.markers.record = foldRecordEvent(before, event, t);
    // A start can end the turn too: its ending was read first from a side record.
    if (this.markers.record !== before && this.markers.record.ending) this.recordEnded(t);
  }

  /**
   * One event a CLI's hook told (docs/hooks.md): a third witness under the same rules as the
   * session record. Hooks need no finding: the first event makes them a witness.
   */
  hookEvent(t: number, event: HookTurnEvent): void {
    const w = this.o.witness;
    if (!w || w.authority === 'surface') return;
    this.now = Math.max(this.now, t);
    this.recordSeen = true;
    this.markers.hook = foldHookEvent(this.markers.hook, event, t);
    if (event.type === 'turn_ended') this.recordEnded(t);
  }

  /**
   * An ending a completion observer told (docs/witness.md): a marker witness under the same
   * rules as the session record, for the open turn only. Answers why it was not taken, or null
   * when it was: `not_current_turn` (no turn is open, or another one is), `already_ended` (an
   * observer already ended this turn), `surface` (the screen alone decides).
   */
  observerEnding(
    t: number,
    event: ObserverEnding,
  ): 'surface' | 'not_current_turn' | 'already_ended' | null {
    const w = this.o.witness;
    if (!w || w.authority === 'surface') return 'surface';
    const turn = this.current;
    if (!turn || turn.id !== event.turnId) return 'not_current_turn';
    const before = this.markers.observer;
    if (before?.ending && before.startedAt === turn.startedAt) return 'already_ended';
    this.now = Math.max(this.now, t);
    this.recordSeen = true;
    this.markers.observer = foldObserverEnding(before, event, turn.startedAt);
    this.recordEnded(t);
    return null;
  }

  /** Whether the open turn has shown evidence of its own yet (activity, a changed transcript). */
  get turnHasEvidence(): boolean {
    const e = this.phase.context.evidence;
    return this.current !== null && e !== null && (e.sawActive || e.projectionChanged);
  }

  /** A prompt submitted through paneward: an explicit-input turn with this id. */
  armExplicit(t: number, turnId: string): void {
    this.o.timers.clear(WITNESS_KEY);
    this.heldSettle = false;
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
        ...(this.o.witness && this.recordSeen && ctx.turnId !== null && this.lastWitness
          ? { witness: this.lastWitness }
          : {}),
      },
    };
  }

  stop(): void {
    this.o.timers.clear(SETTLE_KEY);
    this.o.timers.clear(STALE_KEY);
    this.o.timers.clear(WITNESS_KEY);
    this.off.unsubscribe();
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
   * The session record's evidence that the open turn ended with a success, or null: the payload
   * of the kernel's completion observer (a candidate completes at once, docs/statecharts.md §2).
   */
  recordSuccessEvidence(): MarkerEvidence | null {
    if (!this.o.witness || this.o.witness.authority === 'surface') return null;
    // The completion chart outlives the turn's outcome: the latest turn started, open or not.
    const startedAt = this.current?.startedAt ?? this.lastStartedAt;
    const rec = startedAt === null ? null : this.recordOf(startedAt);
    return rec?.ending?.reason === 'success' ? rec.endedBy : null;
  }

  /** The record's latest turn, when it is the open turn's (started no earlier than it). */
  private recordOfCurrent(): RecordTurn | null {
    const current = this.current;
    return current ? this.recordOf(current.startedAt) : null;
  }

  /**
   * The marker witnesses' latest turn, when it is that of the turn started at `startedAt`: one
   * that ended it (the record's first), else one still open (one that can tell a success first,
   * so a screen success waits for it).
   */
  private recordOf(startedAt: number): RecordTurn | null {
    const mine = this.markersOf(startedAt);
    const w = this.o.witness;
    return (
      mine.find((m) => m.ending !== null) ??
      mine.find((m) => w !== undefined && markerTells(w, m.by, 'success')) ??
      mine[0] ??
      null
    );
  }

  /** Each marker witness's latest turn that is the turn started at `startedAt`. */
  private markersOf(startedAt: number): RecordTurn[] {
    const all = [
      this.recordLive ? this.markers.record : null,
      this.markers.hook,
      this.markers.observer,
    ];
    // An observer names its turn, so its ending is that turn's exactly; the record and hooks
    // are matched by time.
    return all.filter(
      (m): m is RecordTurn =>
        m !== null &&
        (m.by === 'observer'
          ? m.startedAt === startedAt
          : m.startedAt >= startedAt - RECORD_TURN_SLACK_SECONDS),
    );
  }

  /** The screen's success settled: it stands unless the record, still open, says wait. */
  private settleElapsed(due: number): void {
    const w = this.o.witness;
    const rec = this.recordOfCurrent();
    if (!w || w.authority === 'surface' || !rec) {
      this.send(due, { type: 'settle_window_elapsed', t: due });
      return;
    }
    if (rec.ending?.reason === 'success') {
      this.decide(due, 'both', () => this.send(due, { type: 'settle_window_elapsed', t: due }));
      return;
    }
    // A record that cannot tell a success (Gemini CLI's) is not waited for: the screen's word.
    if (rec.ending === null && !markerTells(w, rec.by, 'success')) {
      this.decide(due, 'surface', () => this.send(due, { type: 'settle_window_elapsed', t: due }));
      return;
    }
    // The record has not ended the turn, or ended it otherwise: the screen's success waits
    // for the record (at most the window, armed here or when the record ended).
    this.heldSettle = true;
    if (rec.ending === null) this.armWindow(due);
  }

  /** The record ended the open turn. */
  private recordEnded(t: number): void {
    const w = this.o.witness!;
    this.confirmScreenOutcome(t);
    const rec = this.recordOfCurrent();
    if (!rec?.ending) return;
    if (w.authority === 'markers') {
      this.recordDecides(t, null);
      return;
    }
    if (rec.ending.reason === 'success' && this.agreeWithRecord(t)) return;
    if (rec.ending.reason !== 'success' && this.heldSettle) {
      // The screen settled a success the record says it was not: the record wins at once.
      this.recordDecides(t, { successCandidate: true });
      return;
    }
    this.armWindow(t);
  }

  /**
   * The screen decided the latest turn's outcome alone, and the record now ends that turn the
   * same way within the window: both witnessed it (the CLI may write its record a moment after
   * it draws the marker).
   */
  private confirmScreenOutcome(t: number): void {
    const last = this.screenOnly;
    this.screenOnly = null;
    if (!last || this.current || t - last.at > this.o.witness!.windowSeconds) return;
    const rec = this.recordOf(last.startedAt);
    if (rec?.ending?.reason !== last.reason) return;
    this.lastWitness = 'both';
  }

  /**
   * The record ended the open turn with a success and the screen reads a success candidate (its
   * settle window running, or run out and held): the success is settled now.
   */
  private agreeWithRecord(t: number): boolean {
    const rec = this.recordOfCurrent();
    if (rec?.ending?.reason !== 'success' || this.o.witness?.authority === 'surface') return false;
    const settling = this.phase.context.settling !== null;
    if (settling || this.heldSettle) {
      this.o.timers.clear(SETTLE_KEY);
      this.o.timers.clear(WITNESS_KEY);
      this.heldSettle = false;
      this.decide(t, 'both', () => this.send(t, { type: 'settle_window_elapsed', t }));
      return true;
    }
    // A ready idle prompt after the turn showed evidence agrees too: a CLI that draws a
    // finished reply like any other idle screen (Cline) never shows a success candidate.
    if (!this.screenReady()) return false;
    this.o.timers.clear(WITNESS_KEY);
    this.recordDecidesAgreed(t);
    return true;
  }

  /** The screen reads an idle prompt: ready posture, nothing active, no marker, no dialog. */
  private screenReady(): boolean {
    const f = this.lastFrame;
    const evidence = this.phase.context.evidence;
    if (!f?.available || !evidence || !(evidence.sawActive || evidence.projectionChanged)) {
      return false;
    }
    const s = f.signals;
    return (
      s.readyPosture === 'yes' &&
      s.acceptingInput === 'yes' &&
      s.editingInput !== 'yes' &&
      s.activeReasons.length === 0 &&
      !s.interrupted &&
      s.knownFailure === null &&
      s.blockedPrompt === null &&
      !s.ambiguous
    );
  }

  /** The record's success, with the screen reading ready: both witnessed it. */
  private recordDecidesAgreed(t: number): void {
    this.heldSettle = false;
    this.decide(t, 'both', () =>
      this.send(t, { type: 'record_outcome', t, outcome: 'evt_success_settled' }),
    );
  }

  private armWindow(t: number): void {
    const seconds = this.o.witness!.windowSeconds;
    this.o.timers.set(WITNESS_KEY, t + seconds, TimerOrder.witness, (due) =>
      this.windowElapsed(due),
    );
  }

  /** The two disagreed for the whole window. */
  private windowElapsed(due: number): void {
    this.now = due;
    const rec = this.recordOfCurrent();
    if (!this.current) return;
    if (rec?.ending) {
      this.recordDecides(due, { successCandidate: this.heldSettle });
      return;
    }
    // The record never ended the turn while the screen's success waited: the screen's word.
    if (this.heldSettle) this.releaseHeld(due, 'surface');
  }

  private releaseHeld(t: number, by: OutcomeWitness): void {
    this.heldSettle = false;
    const turn = this.current;
    if (turn) {
      this.o.onDisagreement?.({
        t,
        turnId: turn.id,
        record: 'open',
        screen: { phase: this.phase.state as TurnPhaseState, successCandidate: true },
        decided: by,
        evidence: null,
      });
    }
    this.decide(t, by, () => this.send(t, { type: 'settle_window_elapsed', t }));
  }

  /** The record's ending becomes the open turn's outcome. */
  private recordDecides(t: number, disagreed: { successCandidate: boolean } | null): void {
    const rec = this.recordOfCurrent();
    const turn = this.current;
    if (!rec?.ending || !turn) return;
    this.o.timers.clear(WITNESS_KEY);
    this.heldSettle = false;
    if (disagreed) {
      this.o.onDisagreement?.({
        t,
        turnId: turn.id,
        record: rec.ending.reason,
        screen: {
          phase: this.phase.state as TurnPhaseState,
          successCandidate: disagreed.successCandidate || this.phase.context.settling !== null,
        },
        decided: rec.by,
        evidence: rec.endedBy,
      });
    }
    const outcome = outcomeEventOf(rec.ending);
    this.decide(t, rec.by, () => this.send(t, { type: 'record_outcome', t, outcome }));
  }

  private decide(t: number, by: OutcomeWitness, send: () => void): void {
    this.now = Math.max(this.now, t);
    this.deciding = by;
    try {
      send();
    } finally {
      this.deciding = null;
    }
  }

  /** Who decided an outcome the chart just reported. */
  private witnessOf(outcome: string, startedAt: number): OutcomeWitness {
    if (this.deciding) return this.deciding;
    const reason = OUTCOME_OF[outcome as keyof typeof OUTCOME_OF];
    const agreed = this.markersOf(startedAt).some((m) => m.ending?.reason === reason);
    return agreed ? 'both' : 'surface';
  }

  /** The evidence of each marker witness that ended the turn with this outcome. */
  private evidenceOf(
    outcome: string,
    startedAt: number,
  ): {
    record?: { file: string; offset: number; event: string };
    hook?: { event: string };
    observer?: { name: string };
  } {
    const reason = OUTCOME_OF[outcome as keyof typeof OUTCOME_OF];
    const out: {
      record?: { file: string; offset: number; event: string };
      hook?: { event: string };
      observer?: { name: string };
    } = {};
    for (const m of this.markersOf(startedAt)) {
      const e = m.endedBy;
      if (m.ending?.reason !== reason || !e) continue;
      if ('hook' in e) out.hook = { event: e.hook };
      else if ('observer' in e) out.observer = { name: e.observer };
      else out.record = e;
    }
    return out;
  }

  private onOutcome(ev: Extract<TurnPhaseEmitted, { type: 'outcome' }>): void {
    const witness =
      ev.outcome === 'evt_success_retracted' ? null : this.witnessOf(ev.outcome, ev.startedAt);
    const evidence =
      witness && witness !== 'surface' ? this.evidenceOf(ev.outcome, ev.startedAt) : {};
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
      this.lastWitness = witness;
      this.screenOnly =
        witness === 'surface'
          ? { startedAt: ev.startedAt, reason: OUTCOME_OF[ev.outcome], at: ev.at }
          : null;
      // The screen's own outcome ends whatever the witness was waiting for.
      this.o.timers.clear(WITNESS_KEY);
      this.heldSettle = false;
      this.o.onTurn({
        kind: 'turn.ended',
        t: ev.at,
        turnId: ev.turnId,
        source: ev.source,
        outcome: OUTCOME_OF[ev.outcome],
        ...(witness && this.o.witness && this.recordSeen ? { witness } : {}),
        ...evidence,
      });
    }
  }
}
