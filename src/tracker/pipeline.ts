import { BehaviorSubject, asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { Kernel, type KernelOptions } from '../kernel/kernel.js';
import { normalizeProjection } from '../kernel/normalize.js';
import { WatchdogDriver, type WatchdogCancelRecord } from '../kernel/watchdog-driver.js';
import type { ToolProfile, Screen } from '../profiles/types.js';
import type { KernelConfigInput, KernelRecord } from '../schemas/kernel.js';
import type { Observation } from '../schemas/observation.js';
import type {
  ParseOutcome,
  ProbeOutcome,
  ProcessOutcome,
  TransportOutcome,
} from '../schemas/probe.js';
import { NO_SIGNALS, type ProfileResult } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { DiagnosticsTracker } from './diagnostics.js';
import { TurnTracker, type TurnRecord } from './turn-tracker.js';

/** One entry of a terminal's transition history. */
export type HistoryRecord =
  | (KernelRecord & { evidence?: { detector: string; rule: string } })
  | TurnRecord
  | { t: number; machine: 'diagnostics' | 'watchdog'; from: string; to: string; event: string };

export interface PipelineOptions {
  terminalId: string;
  profile: ToolProfile;
  toolVersion?: string;
  config?: KernelConfigInput & { sessionWallClockSeconds?: number };
  scheduler?: SchedulerLike;
  /** Scheduler time (ms) that is observation time 0. */
  originMs?: number;
  observer?: KernelOptions['observer'];
  /** Wall-clock epoch ms of observation time 0 (for the watchdog's ISO times). */
  epochMsAtZero?: number;
  /** The watchdog fired: append its record to the journal. */
  onWatchdogRecord?: (r: WatchdogCancelRecord) => void;
  /** The watchdog fired: interrupt the agent. */
  onWatchdogCancel?: () => void;
  /** How many history records to keep (oldest dropped first). */
  historyLimit?: number;
}

/** A poll's probe facts; `parse` is decided here. */
export interface ProbeFacts {
  transport: TransportOutcome;
  process: ProcessOutcome;
  error?: { kind: string; message: string } | null;
}

/**
 * The per-terminal pipeline: probe + screen → profile → diagnostics, kernel (readiness and
 * completion) and turn tracker → the public terminal state. The same code runs live and in
 * replay; only the scheduler differs.
 */
export class TerminalPipeline {
  readonly kernel: Kernel;
  private readonly diagnostics = new DiagnosticsTracker();
  private readonly turns: TurnTracker;
  private readonly watchdog: WatchdogDriver;
  private readonly subject: BehaviorSubject<TerminalState>;
  private readonly history: HistoryRecord[] = [];
  private readonly historyLimit: number;
  private parsed: ProfileResult | null = null;
  private parse: ParseOutcome | null = null;
  private probeError: { kind: string; message: string } | null = null;
  /** The profile's evidence for the frame being classified, attached to kernel records. */
  private evidence: { detector: string; rule: string } | undefined;
  private surfaceKey = '';
  private surfaceSince = 0;
  private now = 0;
  private completionTurnId: string | null = null;
  private sessionStatus: TerminalState['session'] = { status: 'running', stopReasonCode: null };
  private budgetSeconds: number;

  constructor(private readonly o: PipelineOptions) {
    const scheduler = o.scheduler ?? asyncScheduler;
    this.kernel = new Kernel({
      config: o.config,
      scheduler,
      originMs: o.originMs ?? 0,
      observer: o.observer,
    });
    this.historyLimit = o.historyLimit ?? 2000;
    this.kernel.records$.subscribe((r) => this.push(r));
    this.turns = new TurnTracker(this.kernel.timers, this.kernel.config.settleSeconds, (r) =>
      this.push(r),
    );
    this.budgetSeconds = o.config?.sessionWallClockSeconds ?? 14400;
    this.watchdog = new WatchdogDriver({
      sessionId: o.terminalId,
      budgetSeconds: this.budgetSeconds,
      timers: this.kernel.timers,
      toEpochMs: (t) => (o.epochMsAtZero ?? 0) + t * 1000,
      record: (r) => o.onWatchdogRecord?.(r),
      cancel: () => {
        this.sessionStatus = { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' };
        o.onWatchdogCancel?.();
      },
      onStep: (step, t) => this.push({ t, machine: 'watchdog', ...step }),
    });
    this.subject = new BehaviorSubject(this.compose());
    this.kernel.timers.onFired((due) => this.publish(due));
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

  /** Transition history, oldest first (bounded). */
  getHistory(limit?: number): HistoryRecord[] {
    return limit === undefined ? this.history.slice() : this.history.slice(-limit);
  }

  /** Starts the session watchdog window (persisted start after a restart). */
  startSession(startedAt: number, alreadyFired = false): void {
    this.watchdog.start(startedAt, alreadyFired);
    if (alreadyFired) {
      this.sessionStatus = { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' };
    }
    this.publish(startedAt);
  }

  /** An explicit resume after the watchdog fired: a fresh window from `t`. */
  resumeSession(t: number): void {
    this.kernel.advance(t);
    this.watchdog.resume(t);
    this.sessionStatus = { status: 'running', stopReasonCode: null };
    this.publish(t);
  }

  finishSession(t: number): void {
    this.watchdog.finish(t);
    this.sessionStatus = { status: 'finished', stopReasonCode: null };
    this.publish(t);
  }

  /** Moves time to `t`, firing due timers. */
  advance(t: number): void {
    this.kernel.advance(t);
    this.now = t;
  }

  /** One poll with a capture. */
  frame(t: number, screen: Screen, probe: ProbeFacts): void {
    this.kernel.advance(t);
    let result: ProfileResult | null = null;
    let parse: ParseOutcome;
    let error = probe.error ?? null;
    if (probe.transport !== 'tmux_up') parse = 'transport_unavailable';
    else if (probe.process === 'tui_down') parse = 'skipped_tui_down';
    else if (probe.process === 'unsupported_tool' || this.o.profile.processNames.length === 0) {
      parse = 'unsupported_tool';
      result = this.safeParse(screen);
    } else {
      try {
        result = this.o.profile.parse(screen);
        parse = 'parsed';
      } catch (err) {
        parse = 'parse_error';
        error = { kind: 'parse_error', message: err instanceof Error ? err.message : String(err) };
      }
    }
    this.step(t, { transport: probe.transport, process: probe.process, parse, error }, result);
  }

  /** One poll that produced no capture. */
  probe(t: number, probe: ProbeFacts & { parse?: ParseOutcome }): void {
    this.kernel.advance(t);
    const parse =
      probe.parse ?? (probe.transport === 'tmux_up' ? 'probe_error' : 'transport_unavailable');
    this.step(
      t,
      { transport: probe.transport, process: probe.process, parse, error: probe.error ?? null },
      null,
    );
  }

  /** A prompt was submitted: arms a turn anchor (explicit input); returns the turn id. */
  submit(t: number): string {
    const turn = this.kernel.submit(t, this.projectionText);
    const id = `turn-${turn}`;
    this.completionTurnId = id;
    this.turns.armExplicit(t, id);
    this.publish(t);
    return id;
  }

  dispose(): void {
    this.turns.stop();
    this.watchdog.stop();
    this.diagnostics.stop();
    this.kernel.dispose();
    this.subject.complete();
  }

  private safeParse(screen: Screen): ProfileResult | null {
    try {
      return this.o.profile.parse(screen);
    } catch {
      return null;
    }
  }

  private step(t: number, outcome: ProbeOutcome, result: ProfileResult | null): void {
    this.now = t;
    this.parse = outcome.parse;
    this.probeError = outcome.error;
    for (const s of this.diagnostics.probe(outcome)) {
      this.push({ t, machine: 'diagnostics', ...s });
    }
    const available = this.diagnostics.state === 'available';
    if (result) this.parsed = result;
    const obs = this.observation(available, result);
    this.evidence = result?.evidence;
    this.kernel.observe(t, obs);
    this.evidence = undefined;
    this.turns.frame(t, {
      available: available && result !== null,
      signals: result?.signals ?? NO_SIGNALS,
      projectionText: result?.surface.projectionText ?? '',
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
    }
    this.publish(t);
  }

  /** What the kernel sees: the profile's surface when diagnostics are available, else why not. */
  private observation(available: boolean, result: ProfileResult | null): Observation {
    const projectionText = this.parsed?.surface.projectionText ?? '';
    const blank = {
      businessState: 'unknown',
      inputMode: 'unknown',
      projectionText,
      baselineInvalidated: false,
    } as const;
    if (available && result) return { ...result.surface, baselineInvalidated: false };
    switch (this.diagnostics.state) {
      case 'tui_down':
      case 'unavailable':
        return { ...blank, availability: 'disconnected', uiContext: this.diagnostics.state };
      case 'error':
        return { ...blank, availability: 'unknown', uiContext: 'probe_error' };
      default:
        return this.parse === 'unsupported_tool'
          ? { ...blank, availability: 'unsupported', uiContext: 'unsupported_tool' }
          : { ...blank, availability: 'unknown', uiContext: 'unknown' };
    }
  }

  private push(r: HistoryRecord): void {
    let rec = r;
    if ('anomaly' in r) rec = { ...r, parserFamily: this.o.profile.id };
    else if (this.evidence && (r.machine === 'readiness' || r.machine === 'completion')) {
      rec = { ...r, evidence: this.evidence };
    }
    this.history.push(rec);
    if (this.history.length > this.historyLimit)
      this.history.splice(0, this.history.length - this.historyLimit);
  }

  private publish(t: number): void {
    this.now = Math.max(this.now, t);
    const next = this.compose();
    const prev = this.subject.getValue();
    if (!sameState(prev, next)) this.subject.next(next);
  }

  private compose(): TerminalState {
    const d = this.diagnostics;
    const k = this.kernel.snapshot();
    const turn = this.turns.snapshot();
    const available = d.state === 'available';
    const surface = this.parsed && available ? this.parsed : null;
    const sig = surface?.signals ?? NO_SIGNALS;
    const stableFor = Math.max(0, this.now - this.surfaceSince);
    return {
      terminalId: this.o.terminalId,
      tool: this.o.profile.id,
      toolVersion: this.o.toolVersion ?? null,
      t: this.now,
      diagnostics: {
        availability: d.state,
        transport: d.outcome?.transport ?? null,
        process: d.outcome?.process ?? null,
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
      turn: { phase: turn.phase, current: turn.current },
      lastTurn: turn.lastTurn,
      readiness: { status: k.readiness as TerminalState['readiness']['status'] },
      completion:
        k.completion && this.completionTurnId
          ? {
              turnId: this.completionTurnId,
              status: k.completion.status as NonNullable<TerminalState['completion']>['status'],
              sawWorking: k.completion.evidence.sawWorking,
              sawProjectionChange: k.completion.evidence.sawProjectionChange,
              ...(k.completion.payload === null ? {} : { payload: k.completion.payload }),
            }
          : null,
      chatContext: { state: available ? sig.chatContext : 'unknown' },
      stability: {
        stable: stableFor >= this.kernel.config.stabilitySeconds,
        stableForSeconds: stableFor,
      },
      watchdog: {
        state: this.watchdog.state as TerminalState['watchdog']['state'],
        sessionStartedAt: this.watchdog.sessionStartedAt,
        budgetSeconds: this.budgetSeconds,
      },
      session: this.sessionStatus,
    };
  }
}

/** Equal but for the clock-derived fields (`t`, `stability.stableForSeconds`). */
export function sameState(a: TerminalState, b: TerminalState): boolean {
  const strip = (s: TerminalState) => ({
    ...s,
    t: 0,
    stability: { stable: s.stability.stable, stableForSeconds: 0 },
  });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
