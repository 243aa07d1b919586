import { createHash } from 'node:crypto';
import { BehaviorSubject, asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { createActor, type ActorRefFrom } from 'xstate';
import { completionMachine, type CompletionInput } from '../../machines/completion.js';
import { diagnosticsMachine } from '../../machines/diagnostics.js';
import { lastTurnMachine } from '../../machines/lastTurn.js';
import { readinessMachine } from '../../machines/readiness.js';
import { normalizeProjection, type SurfaceObservation } from '../../machines/surface.js';
import { turnPhaseMachine, type TurnPhaseInput } from '../../machines/turnPhase.js';
import { watchdogMachine } from '../../machines/watchdog.js';
import { ChartRunner, InspectionHub } from '../kernel/chart-runner.js';
import type { CompletionObserver } from '../kernel/completion-driver.js';
import { Kernel, type ChartHost } from '../kernel/kernel.js';
import { TimerOrder, Timers } from '../kernel/timers.js';
import { WatchdogDriver, type WatchdogCancelRequest } from '../kernel/watchdog-driver.js';
import { Journal } from '../journal/journal.js';
import { isNewerThanVerified, isVerified } from '../profiles/internal/define.js';
import type { ToolProfile, Screen } from '../profiles/types.js';
import { KernelConfig, type KernelConfigInput } from '../schemas/kernel.js';
import type {
  ParseOutcome,
  ProbeOutcome,
  ProcessOutcome,
  TransportOutcome,
} from '../schemas/probe.js';
import type {
  ChartTransition,
  JournalRecord,
  RecordDraft,
  RecordEvidence,
  RestoreFacts,
} from '../schemas/record.js';
import { NO_SIGNALS, type ProfileResult } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { TurnDriver, type TurnLifecycle } from './turn-driver.js';

/** The statechart actors of one terminal. */
export interface TerminalCharts {
  diagnostics: ActorRefFrom<typeof diagnosticsMachine>;
  readiness: ActorRefFrom<typeof readinessMachine>;
  turnPhase: ActorRefFrom<typeof turnPhaseMachine>;
  lastTurn: ActorRefFrom<typeof lastTurnMachine>;
  watchdog: ActorRefFrom<typeof watchdogMachine>;
}

/** Where a terminal's charts live: children of its terminal actor, or roots of their own. */
export interface ChartSite {
  readonly hub: InspectionHub;
  readonly charts: TerminalCharts;
  /** A new completion actor for an explicit turn. */
  completion(turnId: string, input: CompletionInput): ActorRefFrom<typeof completionMachine>;
  stopCompletion(turnId: string): void;
  /** Stops the charts this site created itself. */
  dispose?(): void;
}

/** The machines of a terminal's charts. */
export interface ChartLogic {
  diagnostics: typeof diagnosticsMachine;
  readiness: typeof readinessMachine;
  completion: typeof completionMachine;
  turnPhase: typeof turnPhaseMachine;
  lastTurn: typeof lastTurnMachine;
  watchdog: typeof watchdogMachine;
}

/** While frames go on matching no known shape, one anomaly record per this many seconds. */
const UNRECOGNISED_RECORD_SECONDS = 60;

const CHART_LOGIC: ChartLogic = {
  diagnostics: diagnosticsMachine,
  readiness: readinessMachine,
  completion: completionMachine,
  turnPhase: turnPhaseMachine,
  lastTurn: lastTurnMachine,
  watchdog: watchdogMachine,
};

/** A site whose charts are root actors of their own: it stops them itself. */
export type StandaloneSite = ChartSite & { dispose(): void };

/** Charts as root actors of their own (replay of one terminal, tests). */
export function standaloneSite(options: {
  config: KernelConfig;
  watchdogBudgetSeconds?: number;
  openTurn?: TurnPhaseInput['openTurn'];
  hub?: InspectionHub;
  /** Replaces a chart's machine (tests that check they would notice a wrong one). */
  logic?: Partial<ChartLogic>;
}): StandaloneSite {
  const hub = options.hub ?? new InspectionHub();
  const c = options.config;
  const m: ChartLogic = { ...CHART_LOGIC, ...options.logic };
  const charts: TerminalCharts = {
    diagnostics: createActor(m.diagnostics, { inspect: hub.inspect }).start(),
    readiness: createActor(m.readiness, { input: c, inspect: hub.inspect }).start(),
    turnPhase: createActor(m.turnPhase, {
      input: {
        settleSeconds: c.settleSeconds,
        staleActiveSeconds: c.staleActiveSeconds,
        openTurn: options.openTurn ?? null,
      },
      inspect: hub.inspect,
    }).start(),
    lastTurn: createActor(m.lastTurn, { inspect: hub.inspect }).start(),
    watchdog: createActor(m.watchdog, {
      input: { budgetSeconds: options.watchdogBudgetSeconds ?? 0 },
      inspect: hub.inspect,
    }).start(),
  };
  const completions = new Map<string, { stop(): void }>();
  return {
    hub,
    charts,
    completion: (turnId, input) => {
      const actor = createActor(m.completion, { input, inspect: hub.inspect }).start();
      completions.set(turnId, actor);
      return actor;
    },
    stopCompletion: (turnId) => {
      completions.get(turnId)?.stop();
      completions.delete(turnId);
    },
    dispose: () => {
      for (const a of [...Object.values(charts), ...completions.values()]) a.stop();
      completions.clear();
    },
  };
}

export interface PipelineOptions {
  terminalId: string;
  profile: ToolProfile;
  toolVersion?: string;
  /** The pane, as attached (shown in the public state). */
  target?: string;
  config?: KernelConfigInput;
  /** The clock: wakes the timers and tells the time (epoch ms live; virtual in replay). */
  scheduler?: SchedulerLike;
  /** Scheduler time (ms) that is observation time 0 (0 live: observation time is epoch seconds). */
  originMs?: number;
  /** Where the charts live; by default each is a root actor of its own. */
  site?: ChartSite;
  /** The record stream; by default an in-memory one of its own. */
  journal?: Journal;
  /** What the journal remembers of this terminal (a restart continues from it). */
  restore?: RestoreFacts | null;
  observer?: CompletionObserver;
  /** Session wall-clock budget (standalone site only; a terminal actor gives it to its chart). */
  watchdogBudgetSeconds?: number;
  /** The watchdog cancelled the session: interrupt the agent (only called while a turn runs). */
  interrupt?: () => Promise<void>;
}

/** A poll's probe facts; `parse` is decided here. */
export interface ProbeFacts {
  transport: TransportOutcome;
  process: ProcessOutcome;
  error?: { kind: string; message: string } | null;
}

/**
 * The per-terminal pipeline: probe + screen → profile → the charts (diagnostics, readiness,
 * completion, turn phase, last turn, watchdog) → the public terminal state and the record
 * stream. The same code runs live (charts as children of the terminal actor) and in replay
 * (on virtual time); it keeps time and evidence, the charts decide.
 */
export class TerminalPipeline {
  readonly kernel: Kernel;
  readonly journal: Journal;
  readonly timers: Timers;
  private readonly site: ChartSite;
  /** The site this pipeline made itself (none given), which it stops with itself. */
  private readonly ownSite: StandaloneSite | null;
  private readonly ownsJournal: boolean;
  private readonly diagnostics: ChartRunner<ActorRefFrom<typeof diagnosticsMachine>>;
  private readonly turns: TurnDriver;
  private readonly watchdog: WatchdogDriver;
  private readonly subject: BehaviorSubject<TerminalState>;
  private profile: ToolProfile;
  private toolVersion: string | undefined;
  /** Unrecognised frames not yet in an anomaly record: how many, the first one's time, the latest's hash. */
  private unrecognised: { frames: number; firstT: number; hash: string } | null = null;
  /** When the last unrecognised_screen record was written. */
  private unrecognisedRecordedAt = -Infinity;
  private parsed: ProfileResult | null = null;
  private parse: ParseOutcome | null = null;
  private probeError: { kind: string; message: string } | null = null;
  private probeOutcome: ProbeOutcome | null = null;
  private surfaceKey: string | null = null;
  private surfaceSince: number | null = null;
  /** When the public state last changed (anything but the clock and the stability fields). */
  private stateSince: number | null = null;
  private now = 0;
  private completionTurnId: string | null = null;
  /** When readiness and the turn phase last changed. */
  private readinessSince: number | null = null;
  private phaseSince: number | null = null;
  /** Transitions since the last published state, and what they were decided on. */
  private transitions: ChartTransition[] = [];
  private evidence: RecordEvidence | null = null;
  private disposed = false;
  /** The latest capture, for people looking at the pane (never published or journaled). */
  private lastScreen: { text: string; t: number } | null = null;

  constructor(private readonly o: PipelineOptions) {
    this.profile = o.profile;
    this.toolVersion = o.toolVersion;
    const scheduler = o.scheduler ?? asyncScheduler;
    const config = KernelConfig.parse(o.config ?? {});
    this.journal = o.journal ?? new Journal({ dataDir: null, scheduler });
    this.ownsJournal = !o.journal;
    if (o.site) {
      this.site = o.site;
      this.ownSite = null;
    } else {
      this.ownSite = standaloneSite({
        config,
        watchdogBudgetSeconds: o.watchdogBudgetSeconds ?? o.restore?.request.watchdogBudgetSeconds,
        openTurn: o.restore?.openTurn ?? null,
      });
      this.site = this.ownSite;
    }
    this.timers = new Timers(scheduler, o.originMs ?? 0);
    const site = this.site;
    const host: ChartHost = {
      hub: site.hub,
      readiness: () => site.charts.readiness,
      completion: (turnId, input) => site.completion(turnId, input),
      stopCompletion: (turnId) => site.stopCompletion(turnId),
    };
    this.kernel = new Kernel({ config, host, timers: this.timers, observer: o.observer });
    this.kernel.records$.subscribe((r) => {
      if ('anomaly' in r) {
        this.record({
          kind: 'anomaly',
          terminalId: o.terminalId,
          anomaly: r.anomaly,
          phase: r.phase,
          t: r.t,
          ...('elapsedUnknownSeconds' in r
            ? { elapsedUnknownSeconds: r.elapsedUnknownSeconds }
            : {}),
          ...('elapsedStalledSeconds' in r
            ? { elapsedStalledSeconds: r.elapsedStalledSeconds }
            : {}),
          ...('recoveredTo' in r ? { recoveredTo: r.recoveredTo } : {}),
          parserFamily: this.profile.id,
        });
        return;
      }
      const { t: _t, turn, ...rest } = r;
      this.transitions.push({
        ...rest,
        ...(turn !== undefined && this.completionTurnId ? { turnId: this.completionTurnId } : {}),
      });
    });
    this.diagnostics = new ChartRunner(site.charts.diagnostics, site.hub, (step) =>
      this.transitions.push({ machine: 'diagnostics', ...step }),
    );
    this.turns = new TurnDriver({
      turnPhase: site.charts.turnPhase,
      lastTurn: site.charts.lastTurn,
      hub: site.hub,
      timers: this.timers,
      nextTurnId: () => `turn-${this.journal.index.nextTurn}`,
      onTransition: (_t, tr) => this.transitions.push(tr),
      onTurn: (ev) => this.onTurn(ev),
    });
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

  /**
   * Starts the session: continues the watchdog window the journal recorded (a fired one stays
   * fired), or opens one at `t` when the terminal has a budget.
   */
  startSession(t: number): void {
    this.advance(t);
    const window = this.o.restore?.watchdog;
    if (window) this.watchdog.restore(t, window);
    else {
      this.watchdog.start(t);
      this.recordWindow('started');
    }
    this.publish(t);
  }

  /** An explicit resume after the watchdog fired: a fresh window from `t`. */
  resumeSession(t: number): void {
    this.advance(t);
    const before = this.watchdog.state;
    this.watchdog.resume(t);
    if (before === 'fired') this.recordWindow('resumed');
    this.evidence = this.commandEvidence('resume');
    this.publish(t);
  }

  finishSession(t: number): void {
    this.advance(t);
    this.watchdog.finish(t);
    this.publish(t);
  }

  /** Moves time to `t`, firing due timers. */
  advance(t: number): void {
    this.kernel.advance(t);
    this.now = Math.max(this.now, t);
  }

  /** The pane's latest capture and its time, or null before the first. */
  get screen(): { text: string; t: number } | null {
    return this.lastScreen;
  }

  /** One poll with a capture. */
  frame(t: number, screen: Screen, probe: ProbeFacts): void {
    this.advance(t);
    this.lastScreen = { text: screen.text, t };
    let result: ProfileResult | null = null;
    let parse: ParseOutcome;
    let error = probe.error ?? null;
    if (probe.transport !== 'tmux_up') parse = 'transport_unavailable';
    else if (probe.process === 'tui_down') parse = 'skipped_tui_down';
    else if (probe.process === 'unsupported_tool' || this.profile.processNames.length === 0) {
      parse = 'unsupported_tool';
      // Read for the record only: a parser that throws on it is no error of this terminal.
      try {
        result = this.profile.parse(screen);
      } catch {
        // No result: the evidence names the parse outcome instead.
      }
    } else {
      try {
        result = this.profile.parse(screen);
        parse = 'parsed';
      } catch (err) {
        parse = 'parse_error';
        error = { kind: 'parse_error', message: err instanceof Error ? err.message : String(err) };
      }
    }
    const screenHash = createHash('sha256').update(screen.text).digest('hex').slice(0, 16);
    this.evidence = {
      profile: this.profile.id,
      profileVersion: this.toolVersion ?? null,
      detector: result?.evidence.detector ?? this.profile.id,
      rule: result?.evidence.rule ?? parse,
      screenHash,
    };
    if (result?.recognised === false && parse === 'parsed') this.noteUnrecognised(t, screenHash);
    else this.flushUnrecognised(t);
    this.step(t, { transport: probe.transport, process: probe.process, parse, error }, result);
  }

  /**
   * The CLI's version, as attached (`attach`) or as read from the running CLI (`process`): the
   * screens are read with `profile` (picked for that version) from now on. A version the
   * profile was not verified against is recorded as an anomaly. Returns whether anything changed.
   */
  useVersion(
    t: number,
    version: string,
    profile: ToolProfile,
    source: 'attach' | 'process',
  ): boolean {
    if (source === 'process' && version === this.toolVersion) return false;
    this.advance(t);
    this.profile = profile;
    this.toolVersion = version;
    const verified = profile.verified ?? [];
    if (!isVerified(verified, version)) {
      const newer = isNewerThanVerified(verified, version);
      void this.record({
        kind: 'anomaly',
        terminalId: this.o.terminalId,
        anomaly: 'version_unverified',
        t,
        tool: profile.id,
        toolVersion: version,
        verifiedVersions: [...verified],
        newer,
        screensRead: profile.unverifiedUnread ? 'unrecognised' : 'nearest_vocabulary',
        source,
      });
    }
    this.evidence = null;
    this.publish(t);
    return true;
  }

  private noteUnrecognised(t: number, hash: string): void {
    const u = (this.unrecognised ??= { frames: 0, firstT: t, hash });
    u.frames += 1;
    u.hash = hash;
    // The first of a run is recorded at once; the rest at most once a minute.
    if (t - this.unrecognisedRecordedAt >= UNRECOGNISED_RECORD_SECONDS) this.flushUnrecognised(t);
  }

  /** Records the unrecognised frames not yet recorded, if any. */
  private flushUnrecognised(t: number): void {
    const u = this.unrecognised;
    if (!u) return;
    void this.record({
      kind: 'anomaly',
      terminalId: this.o.terminalId,
      anomaly: 'unrecognised_screen',
      t,
      tool: this.profile.id,
      toolVersion: this.toolVersion ?? null,
      frames: u.frames,
      firstT: u.firstT,
      screenHash: u.hash,
    });
    this.unrecognised = null;
    this.unrecognisedRecordedAt = t;
  }

  /** One poll that produced no capture. */
  probe(t: number, probe: ProbeFacts & { parse?: ParseOutcome }): void {
    this.advance(t);
    const parse =
      probe.parse ?? (probe.transport === 'tmux_up' ? 'probe_error' : 'transport_unavailable');
    this.evidence = {
      profile: this.profile.id,
      profileVersion: this.toolVersion ?? null,
      detector: 'probe',
      rule: `${probe.transport}/${probe.process}`,
      screenHash: null,
    };
    this.step(
      t,
      { transport: probe.transport, process: probe.process, parse, error: probe.error ?? null },
      null,
    );
  }

  /**
   * A prompt was submitted: arms an explicit-input turn (its completion actor compares with the
   * screen as it is now) and records it; returns the turn id, unique across restarts.
   */
  submit(t: number): string {
    this.advance(t);
    const turnId = `turn-${this.journal.index.nextTurn}`;
    this.kernel.submit(t, this.projectionText, turnId);
    this.completionTurnId = turnId;
    this.evidence = this.commandEvidence('submit');
    this.turns.armExplicit(t, turnId);
    this.publish(t);
    return turnId;
  }

  dispose(): void {
    // Stryker disable next-line ConditionalExpression: a second dispose() would only repeat releases that are idempotent (charts, timers, subscriptions, closing the journal), with nothing left to record (an always-true guard is caught: nothing would be stopped)
    if (this.disposed) return;
    this.flushUnrecognised(this.now);
    this.disposed = true;
    this.turns.stop();
    this.watchdog.stop();
    this.diagnostics.dispose();
    this.kernel.dispose();
    this.timers.dispose();
    this.ownSite?.dispose();
    this.subject.complete();
    if (this.ownsJournal) void this.journal.close();
  }

  private commandEvidence(name: string): RecordEvidence {
    return {
      profile: this.profile.id,
      profileVersion: this.toolVersion ?? null,
      detector: `command:${name}`,
      rule: name,
      screenHash: null,
    };
  }

  private step(t: number, outcome: ProbeOutcome, result: ProfileResult | null): void {
    this.parse = outcome.parse;
    this.probeError = outcome.error;
    this.probeOutcome = outcome;
    this.diagnostics.send({ type: 'probe', probe: outcome });
    const available = this.diagnostics.state === 'available';
    if (result) this.parsed = result;
    const obs = this.observation(available, result);
    this.kernel.observe(t, obs);
    this.turns.frame(t, {
      available: available && result !== null,
      signals: result?.signals ?? NO_SIGNALS,
      // A poll with no readable screen says nothing of the transcript: it is as last seen (an
      // empty one would count as a change, evidence for a turn that did nothing).
      projectionText: obs.projectionText,
    });
    const key = JSON.stringify([
      obs.availability,
      obs.businessState,
      obs.inputMode,
      normalizeProjection(obs.projectionText),
    ]);
    if (key !== this.surfaceKey) {
      this.surfaceKey = key;
      this.surfaceSince = t;
      this.armStability(t);
    }
    this.publish(t);
  }

  /**
   * The state turns stable when the window ends, not at the next frame: a pane that stops
   * changing may send no frame for a long time (control mode samples on change).
   */
  private armStability(t: number): void {
    this.timers.set(
      // Stryker disable next-line StringLiteral: the name only has to differ from the terminal's other timers (turn.*, watchdog.*, readiness.*, completion.*), and an empty one does too
      'surface.stability',
      t + this.kernel.config.stabilitySeconds,
      TimerOrder.surfaceStability,
      () => {},
    );
  }

  /** What the kernel sees: the profile's surface when diagnostics are available, else why not. */
  private observation(available: boolean, result: ProfileResult | null): SurfaceObservation {
    const projectionText = this.parsed?.surface.projectionText ?? '';
    const blank = {
      businessState: 'unknown',
      inputMode: 'unknown',
      projectionText,
      baselineInvalidated: false,
    } as const;
    if (available && result) return { ...result.surface, baselineInvalidated: false };
    // The uiContext of these says why the surface is unknown: no chart reads it, a completion
    // observer asked about a turn in progress does.
    switch (this.diagnostics.state) {
      case 'tui_down':
      case 'unavailable':
        return { ...blank, availability: 'disconnected', uiContext: this.diagnostics.state };
      case 'error':
        return { ...blank, availability: 'unknown', uiContext: 'probe_error' };
      default:
        return this.parse === 'unsupported_tool'
          ? {
              ...blank,
              availability: 'unsupported',
              // Stryker disable next-line StringLiteral: an unsupported surface fails the turn on this observation, before an observer could be asked, and no chart reads uiContext
              uiContext: 'unsupported_tool',
            }
          : { ...blank, availability: 'unknown', uiContext: 'unknown' };
    }
  }

  private onTurn(ev: TurnLifecycle): void {
    const terminalId = this.o.terminalId;
    if (ev.kind === 'turn.started') {
      this.record({
        kind: 'turn.started',
        terminalId,
        turnId: ev.turn.id,
        source: ev.turn.source,
        startedAt: ev.turn.startedAt,
      });
    } else if (ev.kind === 'turn.reopened') {
      this.record({
        kind: 'turn.reopened',
        terminalId,
        turnId: ev.turn.id,
        source: ev.turn.source,
        startedAt: ev.turn.startedAt,
        t: ev.t,
      });
    } else {
      this.record({
        kind: 'turn.ended',
        terminalId,
        turnId: ev.turnId,
        source: ev.source,
        outcome: ev.outcome,
        t: ev.t,
      });
    }
  }

  /** The chart asked to cancel the session: journal the record, then interrupt a running turn. */
  private cancelSession(req: WatchdogCancelRequest): void {
    const iso = (s: number) => new Date(s * 1000 + (this.o.originMs ?? 0)).toISOString();
    const turnRunning = this.turns.snapshot().phase === 'active';
    const durable = this.record({
      kind: 'watchdog.cancel',
      terminalId: this.o.terminalId,
      aggregateType: 'runtime_control',
      aggregateId: this.o.terminalId,
      eventKind: 'runtime.watchdog.cancel',
      reason: 'wall_clock_exceeded',
      sessionStartedAt: iso(req.sessionStartedAt),
      firedAt: iso(req.firedAt),
      elapsedSeconds: Math.round(req.firedAt - req.sessionStartedAt),
      configuredBudgetSeconds: Math.round(req.budgetSeconds),
    });
    const interrupt = this.o.interrupt;
    if (turnRunning && interrupt) {
      // Only once the record is durable: a crash in between never cancels twice.
      void durable.then((r) => (r !== null ? interrupt() : undefined)).catch(() => {});
    }
  }

  private recordWindow(reason: 'started' | 'resumed'): void {
    // No window open (no budget): nothing to record. Called right after a start or a resume, so
    // a window is open exactly when the chart is armed.
    const startedAt = this.watchdog.sessionStartedAt;
    if (startedAt === null) return;
    this.record({
      kind: 'watchdog.window',
      terminalId: this.o.terminalId,
      reason,
      sessionStartedAt: startedAt,
      budgetSeconds: this.watchdog.budgetSeconds,
    });
  }

  /** Appends a record; resolves once it is durable (null when the journal failed). */
  private record(draft: RecordDraft): Promise<JournalRecord | null> {
    return this.journal.append(draft).catch(() => null);
  }

  private publish(t: number): void {
    if (this.disposed) return;
    this.now = Math.max(this.now, t);
    const prev = this.subject.getValue();
    let next = this.compose();
    if (next.readiness.status !== prev.readiness.status || this.readinessSince === null) {
      this.readinessSince = this.now;
    }
    if (next.turn.phase !== prev.turn.phase || this.phaseSince === null) this.phaseSince = this.now;
    next = this.compose();
    // stableForSeconds is how long the public state has been unchanged: a change (a fresh
    // success too) is published with 0, not stable. The stability fields themselves do not count.
    if (Object.keys(changedFields(prev, next)).some((k) => !k.startsWith('stability.'))) {
      this.stateSince = this.now;
      this.armStability(this.now);
      next = this.compose();
    }
    const changed = changedFields(prev, next);
    const transitions = this.transitions;
    this.transitions = [];
    // Each chart's state is a public field (diagnostics.availability, readiness.status,
    // completion.status, turn.phase, lastTurn, watchdog.state): transitions always come with a
    // changed field, and a state record is a change of the public state.
    if (Object.keys(changed).length === 0) return;
    this.record({
      kind: 'state',
      terminalId: this.o.terminalId,
      t: this.now,
      changed,
      transitions,
      evidence: this.evidence,
    });
    this.subject.next(next);
  }

  private compose(): TerminalState {
    const diag = this.diagnostics.state as TerminalState['diagnostics']['availability'];
    const k = this.kernel.snapshot();
    const turn = this.turns.snapshot();
    const available = diag === 'available';
    const surface = this.parsed && available ? this.parsed : null;
    const sig = surface?.signals ?? NO_SIGNALS;
    const since =
      this.surfaceSince === null ? null : Math.max(this.surfaceSince, this.stateSince ?? 0);
    const stableFor = since === null ? 0 : Math.max(0, this.now - since);
    const watchdog = this.watchdog.state as TerminalState['watchdog']['state'];
    return {
      terminalId: this.o.terminalId,
      target: this.o.target ?? null,
      tool: this.profile.id,
      toolVersion: this.toolVersion ?? null,
      t: this.now,
      diagnostics: {
        availability: diag,
        transport: this.probeOutcome?.transport ?? null,
        process: this.probeOutcome?.process ?? null,
        parse: this.parse,
        error: this.probeError,
      },
      surface: {
        availability: surface?.surface.availability ?? 'unknown',
        businessState: surface?.surface.businessState ?? 'unknown',
        inputMode: surface?.surface.inputMode ?? 'unknown',
        uiContext: surface?.surface.uiContext ?? 'unknown',
        acceptingInput: sig.acceptingInput,
        editingInput: sig.editingInput,
        readyPosture: sig.readyPosture,
        blockedPrompt: sig.blockedPrompt,
        activeReasons: sig.activeReasons,
      },
      turn: { phase: turn.phase, since: this.phaseSince, current: turn.current },
      lastTurn: turn.lastTurn,
      readiness: {
        status: k.readiness as TerminalState['readiness']['status'],
        since: this.readinessSince,
      },
      completion:
        // Stryker disable next-line LogicalOperator: the kernel has a completion only after submit(), which sets completionTurnId right after handing it the turn, and nothing composes in between
        k.completion && this.completionTurnId
          ? {
              turnId: this.completionTurnId,
              status: k.completion.status as NonNullable<TerminalState['completion']>['status'],
              sawWorking: k.completion.evidence.sawWorking,
              sawProjectionChange: k.completion.evidence.sawProjectionChange,
              ...(k.completion.payload === null ? {} : { payload: k.completion.payload }),
            }
          : null,
      // Signals of a surface that is not available are NO_SIGNALS: `unknown`.
      chatContext: { state: sig.chatContext },
      stability: {
        stable: since !== null && stableFor >= this.kernel.config.stabilitySeconds,
        stableForSeconds: stableFor,
      },
      watchdog: {
        state: watchdog,
        sessionStartedAt: this.watchdog.sessionStartedAt,
        budgetSeconds: this.watchdog.budgetSeconds,
      },
      session:
        watchdog === 'fired'
          ? { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' }
          : watchdog === 'finished'
            ? { status: 'finished', stopReasonCode: null }
            : { status: 'running', stopReasonCode: null },
    };
  }
}

/** The public state of a terminal whose runtime has not published yet. */
export function initialState(o: {
  /** Observation time of the attach. */
  t: number;
  terminalId: string;
  target: string | null;
  tool: string;
  toolVersion: string | null;
  budgetSeconds: number;
  /** What the journal restores (a re-adopted terminal): its last turn and a turn under way. */
  restore?: RestoreFacts | null;
}): TerminalState {
  const last = o.restore?.lastTurn;
  const open = o.restore?.openTurn?.hadEvidence ? o.restore.openTurn.turn : null;
  return {
    terminalId: o.terminalId,
    target: o.target,
    tool: o.tool,
    toolVersion: o.toolVersion,
    t: o.t,
    diagnostics: {
      availability: 'unknown',
      transport: null,
      process: null,
      parse: null,
      error: null,
    },
    surface: {
      availability: 'unknown',
      businessState: 'unknown',
      inputMode: 'unknown',
      uiContext: 'unknown',
      acceptingInput: 'unknown',
      editingInput: 'unknown',
      readyPosture: 'unknown',
      blockedPrompt: null,
      activeReasons: [],
    },
    turn: open
      ? { phase: 'active', since: o.t, current: structuredClone(open) }
      : { phase: 'unknown', since: null, current: null },
    lastTurn: last
      ? { result: last.result, source: last.source, turnId: last.turnId, at: last.at }
      : { result: 'none', source: 'none', turnId: null, at: null },
    readiness: { status: 'waiting', since: null },
    completion: null,
    chatContext: { state: 'unknown' },
    stability: { stable: false, stableForSeconds: 0 },
    watchdog: { state: 'disabled', sessionStartedAt: null, budgetSeconds: o.budgetSeconds },
    session: { status: 'running', stopReasonCode: null },
  };
}

/** Fields that never count as a change: they move with the clock alone. */
const CLOCK_FIELDS = new Set(['t', 'stability.stableForSeconds']);

/** The public-state leaves that differ, as dotted paths with their new values. */
export function changedFields(a: TerminalState, b: TerminalState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const plain = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const walk = (x: unknown, y: unknown, path: string) => {
    if (CLOCK_FIELDS.has(path)) return;
    if (plain(x) && plain(y)) {
      const keys = new Set([...Object.keys(x as object), ...Object.keys(y as object)]);
      for (const k of keys) {
        walk(
          (x as Record<string, unknown>)[k],
          (y as Record<string, unknown>)[k],
          path ? `${path}.${k}` : k,
        );
      }
      return;
    }
    if (JSON.stringify(x) !== JSON.stringify(y)) out[path] = y === undefined ? null : y;
  };
  walk(a, b, '');
  return out;
}

/** Equal but for the clock-derived fields (`t`, `stability.stableForSeconds`). */
export function sameState(a: TerminalState, b: TerminalState): boolean {
  return Object.keys(changedFields(a, b)).length === 0;
}
