import { BehaviorSubject, asyncScheduler, type Observable } from 'rxjs';
import type { ActorRefFrom } from 'xstate';
import type { diagnosticsMachine } from '../../machines/diagnostics.js';
import { ChartRunner } from '../kernel/chart-runner.js';
import { Kernel } from '../kernel/kernel.js';
import { TimerOrder, Timers } from '../kernel/timers.js';
import { WatchdogDriver, type WatchdogCancelRequest } from '../kernel/watchdog-driver.js';
import { Journal } from '../journal/journal.js';
import type { ToolProfile } from '../profiles/types.js';
import { KernelConfig } from '../schemas/kernel.js';
import type { ProbeOutcome } from '../schemas/probe.js';
import type {
  ChartTransition,
  JournalRecord,
  RecordDraft,
  RecordEvidence,
} from '../schemas/record.js';
import { type ProfileResult } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { standaloneSite, type StandaloneSite, type TerminalHost } from '../kernel/charts.js';
import type { PipelineOptions } from './options.js';
import { evidenceOf } from './frame.js';
import {
  kernelAnomalyRecord,
  turnRecord,
  watchdogCancelRecord,
  watchdogWindowRecord,
} from './records.js';
import {
  composeState,
  sameFacts,
  sameTimes,
  settleTimes,
  stableAt,
  type StateFacts,
  type StateTimes,
} from './state.js';
import { TurnDriver } from './turn-driver.js';
import { TurnPayloads } from './payload.js';

/**
 * The per-terminal drivers of the charts (kernel, diagnostics, turns, watchdog), wired to one
 * site, one journal and one clock, and the public terminal state they compose: publishing it
 * (with a state record) when it changed, and the records the drivers ask for. What comes in
 * (frames, probes, submits, witness reports) is {@link TerminalPipeline}'s.
 */
export abstract class TerminalDrivers {
  readonly kernel: Kernel;
  readonly journal: Journal;
  readonly timers: Timers;
  private readonly site: TerminalHost;
  /** The site this pipeline made itself (none given), which it stops with itself. */
  protected readonly ownSite: StandaloneSite | null;
  protected readonly ownsJournal: boolean;
  protected readonly diagnostics: ChartRunner<ActorRefFrom<typeof diagnosticsMachine>>;
  protected readonly turns: TurnDriver;
  protected readonly watchdog: WatchdogDriver;
  protected readonly subject: BehaviorSubject<TerminalState>;
  protected profile: ToolProfile;
  protected toolVersion: string | undefined;
  protected parsed: ProfileResult | null = null;
  protected probeOutcome: ProbeOutcome | null = null;
  protected readonly times: StateTimes;
  protected completionTurnId: string | null = null;
  /** Transitions since the last published state, and what they were decided on. */
  protected transitions: ChartTransition[] = [];
  protected evidence: RecordEvidence | null = null;
  protected disposed = false;
  /** The facts and times of the last publish that composed the state. */
  private lastPublish: { facts: StateFacts; times: StateTimes } | null = null;
  /**
   * The completion witness as shown in the public state: absent under the screen alone, and
   * until the session record was first found.
   */
  protected witness: NonNullable<TerminalState['witness']> | undefined;
  /** Each turn's payload, built when asked for (`onPayload`); never published or journaled. */
  protected readonly payloads: TurnPayloads | null;

  constructor(protected readonly o: PipelineOptions) {
    this.profile = o.profile;
    this.toolVersion = o.toolVersion;
    const scheduler = o.scheduler ?? asyncScheduler;
    const config = KernelConfig.parse(o.config ?? {});
    this.times = {
      now: 0,
      readinessSince: null,
      phaseSince: null,
      surfaceSince: null,
      stateSince: null,
      stabilitySeconds: config.stabilitySeconds,
    };
    this.journal = o.journal ?? new Journal({ dataDir: null, scheduler });
    this.ownsJournal = !o.journal;
    this.payloads = o.onPayload
      ? new TurnPayloads(o.terminalId, o.onPayload, o.profile.replyChrome)
      : null;
    this.ownSite = o.site
      ? null
      : standaloneSite({
          config,
          watchdogBudgetSeconds:
            o.watchdogBudgetSeconds ?? o.restore?.request.watchdogBudgetSeconds,
          openTurn: o.restore?.openTurn ?? null,
          ...(o.witness ? { witness: o.witness } : {}),
        });
    const site = (this.site = o.site ?? this.ownSite!);
    this.timers = new Timers(scheduler, o.originMs ?? 0);
    this.kernel = new Kernel({
      config,
      host: site,
      timers: this.timers,
      // A success the session record confirms completes a candidate at once (docs/statecharts.md §2).
      observer: (obs, ev) => o.observer?.(obs, ev) ?? this.turns.recordSuccessEvidence(),
      onRecord: (r) => {
        if ('anomaly' in r) {
          void this.record(kernelAnomalyRecord(o.terminalId, r, this.profile.id));
          return;
        }
        const { t: _t, turn, ...rest } = r;
        this.transitions.push({
          ...rest,
          ...(turn !== undefined && this.completionTurnId ? { turnId: this.completionTurnId } : {}),
        });
      },
    });
    // Its actions are raise alone: a probe like the last, which changed nothing, is not sent.
    this.diagnostics = new ChartRunner(
      site.charts.diagnostics,
      site.hub,
      (step) => this.transitions.push({ machine: 'diagnostics', ...step }),
      { skipRepeats: true },
    );
    this.turns = new TurnDriver({
      turnPhase: site.charts.turnPhase,
      lastTurn: site.charts.lastTurn,
      witness: site.charts.witness,
      hub: site.hub,
      timers: this.timers,
      nextTurnId: () => `turn-${this.journal.index.nextTurnOf(o.terminalId)}`,
      onTransition: (_t, tr) => this.transitions.push(tr),
      onTurn: (ev) => {
        this.payloads?.turn(ev, this.projectionText);
        void this.record(turnRecord(o.terminalId, ev));
      },
      onDisagreement: (d) =>
        void this.record({
          kind: 'anomaly',
          anomaly: 'witness_disagreement',
          terminalId: o.terminalId,
          ...d,
        }),
    });
    this.witness = undefined;
    this.watchdog = new WatchdogDriver({
      actor: site.charts.watchdog,
      hub: site.hub,
      timers: this.timers,
      // Stryker disable next-line StringLiteral: the name only has to differ from the terminal's other timers (turn.settle, surface.stability, readiness.*, completion.*), and an empty one does too
      key: `watchdog.${o.terminalId}`,
      cancel: (req) => this.cancelSession(req),
      onStep: (step) => this.transitions.push({ machine: 'watchdog', ...step }),
    });
    const last = o.restore?.lastTurn;
    if (last) this.turns.restoreLastTurn(last);
    this.subject = new BehaviorSubject(this.compose());
    this.timers.onFired((due) => {
      this.evidence = null;
      this.publish(due);
    });
  }

  /** Every change of the public state (the current one first). */
  get state$(): Observable<TerminalState> {
    return this.subject.asObservable();
  }

  get state(): TerminalState {
    return this.subject.getValue();
  }

  /** The latest parsed projection (the baseline a submit compares against). */
  get projectionText(): string {
    return this.parsed?.surface.projectionText ?? '';
  }

  /** Moves time to `t`, firing due timers. */
  advance(t: number): void {
    this.kernel.advance(t);
    this.times.now = Math.max(this.times.now, t);
  }

  /**
   * The state turns stable when the window ends, not at the next frame: a pane that stops
   * changing may send no frame for a long time (control mode samples on change).
   */
  protected armStability(t: number): void {
    this.timers.set(
      // Stryker disable next-line StringLiteral: the name only has to differ from the terminal's other timers (turn.*, watchdog.*, readiness.*, completion.*), and an empty one does too
      'surface.stability',
      t + this.kernel.config.stabilitySeconds,
      TimerOrder.surfaceStability,
      () => {},
    );
  }

  /** The chart asked to cancel the session: journal the record, then interrupt a running turn. */
  private cancelSession(req: WatchdogCancelRequest): void {
    const turnRunning = this.turns.snapshot().phase === 'active';
    const durable = this.record(watchdogCancelRecord(this.o.terminalId, req, this.o.originMs ?? 0));
    const interrupt = this.o.interrupt;
    if (turnRunning && interrupt) {
      // Only once the record is durable: a crash in between never cancels twice.
      void durable.then((r) => (r !== null ? interrupt() : undefined)).catch(() => {});
    }
  }

  protected recordWindow(reason: 'started' | 'resumed'): void {
    // No window open (no budget): nothing to record. Called right after a start or a resume, so
    // a window is open exactly when the chart is armed.
    const startedAt = this.watchdog.sessionStartedAt;
    if (startedAt === null) return;
    void this.record(
      watchdogWindowRecord(this.o.terminalId, reason, startedAt, this.watchdog.budgetSeconds),
    );
  }

  /** Appends a record; resolves once it is durable (null when the journal failed). */
  protected record(draft: RecordDraft): Promise<JournalRecord | null> {
    return this.journal.append(draft).catch(() => null);
  }

  /**
   * Composes the public state once and publishes it (with a state record) when it changed. The
   * state is a function of its facts and times: facts and times like those of the last publish
   * (the clock apart), with no transition since, compose the state that publish left but for
   * its clock fields, so only the stability flag can have changed, and it is checked alone.
   */
  protected publish(t: number): void {
    if (this.disposed) return;
    const times = this.times;
    times.now = Math.max(times.now, t);
    const prev = this.subject.getValue();
    const facts = this.facts();
    const last = this.lastPublish;
    if (
      last !== null &&
      this.transitions.length === 0 &&
      sameTimes(times, last.times) &&
      sameFacts(facts, last.facts) &&
      stableAt(times) === prev.stability.stable
    ) {
      return;
    }
    const next = composeState(facts, times);
    const { changed, restarted } = settleTimes(prev, next, times);
    if (restarted) this.armStability(times.now);
    this.lastPublish = { facts, times: { ...times } };
    const transitions = this.transitions;
    this.transitions = [];
    // Each chart's state is a public field (diagnostics.availability, readiness.status,
    // completion.status, turn.phase, lastTurn, watchdog.state): transitions always come with a
    // changed field, and a state record is a change of the public state.
    if (Object.keys(changed).length === 0) return;
    void this.record({
      kind: 'state',
      terminalId: this.o.terminalId,
      t: times.now,
      changed,
      transitions,
      // A plain copy: the screen hash is taken now, and the record keeps no screen text.
      evidence: this.evidence && evidenceOf(this.evidence),
    });
    this.o.onState?.(next);
    this.subject.next(next);
  }

  private compose(): TerminalState {
    return composeState(this.facts(), this.times);
  }

  /** What the public state is made of now (the kernel's snapshot is read once). */
  private facts(): StateFacts {
    return {
      terminalId: this.o.terminalId,
      target: this.o.target ?? null,
      tool: this.profile.id,
      toolVersion: this.toolVersion ?? null,
      diagnostics: this.diagnostics.state as TerminalState['diagnostics']['availability'],
      probe: this.probeOutcome,
      parse: this.probeOutcome?.parse ?? null,
      probeError: this.probeOutcome?.error ?? null,
      parsed: this.parsed,
      kernel: this.kernel.snapshot(),
      completionTurnId: this.completionTurnId,
      turn: this.turns.snapshot(),
      ...(this.witness ? { witness: this.witness } : {}),
      watchdog: {
        state: this.watchdog.state as TerminalState['watchdog']['state'],
        sessionStartedAt: this.watchdog.sessionStartedAt,
        budgetSeconds: this.watchdog.budgetSeconds,
      },
    };
  }
}
