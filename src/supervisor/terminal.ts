import {
  EmptyError,
  asyncScheduler,
  filter,
  firstValueFrom,
  from,
  timeout as rxTimeout,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { PanewardError } from '../errors.js';
import type { FrameSource } from '../observe/frame-source.js';
import type { PaneProbe } from '../observe/probe.js';
import type { ToolProfile } from '../profiles/types.js';
import type { KernelConfigInput } from '../schemas/kernel.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { TerminalPipeline, type HistoryRecord } from '../tracker/pipeline.js';
import type { WatchdogCancelRecord } from '../kernel/watchdog-driver.js';

export interface TerminalOptions {
  terminalId: string;
  target: string;
  profile: ToolProfile;
  toolVersion?: string;
  /** Where this pane's samples come from; its transport types prompts and keys. */
  source: FrameSource;
  config?: KernelConfigInput & { sessionWallClockSeconds?: number };
  scheduler?: SchedulerLike;
  /** Epoch ms when the session started (persisted; a restart continues its window). */
  sessionStartedAtMs?: number;
  onWatchdogRecord?: (r: WatchdogCancelRecord) => void;
  includeAnsi?: boolean;
}

/** What `waitForTurn` resolves with. */
export interface TurnResult {
  turnId: string;
  /** How the turn's completion actor ended (`completed` or `failed`). */
  result: 'completed' | 'failed';
  completion: NonNullable<TerminalState['completion']>;
  lastTurn: TerminalState['lastTurn'];
}

/**
 * One supervised terminal: polls its pane on an rxjs interval (polls never overlap) and feeds
 * the per-terminal pipeline; types prompts literally; interrupts with the profile's keys.
 */
export class TerminalRuntime {
  readonly pipeline: TerminalPipeline;
  private readonly scheduler: SchedulerLike;
  private readonly originMs: number;
  private poll: Subscription | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly o: TerminalOptions) {
    this.scheduler = o.scheduler ?? asyncScheduler;
    this.originMs = this.scheduler.now();
    this.pipeline = new TerminalPipeline({
      terminalId: o.terminalId,
      profile: o.profile,
      toolVersion: o.toolVersion,
      config: o.config,
      scheduler: this.scheduler,
      originMs: this.originMs,
      epochMsAtZero: Date.now(),
      onWatchdogRecord: o.onWatchdogRecord,
      onWatchdogCancel: () => void this.interrupt().catch(() => {}),
    });
    const startedAt =
      o.sessionStartedAtMs === undefined ? 0 : (o.sessionStartedAtMs - Date.now()) / 1000;
    this.pipeline.startSession(startedAt);
  }

  get id(): string {
    return this.o.terminalId;
  }

  get state(): TerminalState {
    return this.pipeline.state;
  }

  get state$(): Observable<TerminalState> {
    return this.pipeline.state$;
  }

  history(limit?: number): HistoryRecord[] {
    return this.pipeline.getHistory(limit);
  }

  /** Seconds since this terminal's time origin. */
  now(): number {
    return (this.scheduler.now() - this.originMs) / 1000;
  }

  /** Starts sampling; `onError` is told if a sample cannot be handled (the supervisor restarts us). */
  start(onError: (err: unknown) => void): void {
    if (this.poll) return;
    this.poll = this.o.source
      .samples({
        target: this.o.target,
        processNames: this.o.profile.processNames,
        includeAnsi: this.o.includeAnsi,
      })
      .subscribe({
        next: (probe) => {
          try {
            this.handle(probe);
          } catch (err) {
            this.stop();
            onError(err);
          }
        },
        error: onError,
      });
  }

  /** Stops polling (the pipeline and its state stay readable). */
  stop(): void {
    this.poll?.unsubscribe();
    this.poll = null;
  }

  dispose(): void {
    this.stop();
    this.abort.abort();
    this.pipeline.dispose();
  }

  /** One sample → one pipeline step. */
  private handle(probe: PaneProbe): void {
    if (this.abort.signal.aborted) return;
    const t = this.now();
    if (probe.capture) {
      this.pipeline.frame(t, probe.capture, probe);
    } else {
      this.pipeline.probe(t, probe);
    }
  }

  /**
   * Types `text` literally into the pane and submits it. Refused unless readiness is `ready`,
   * unless `force`. Returns the new turn's id.
   */
  async submit(
    text: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<string> {
    const state = this.state;
    const status = state.readiness.status;
    // Our own turn that has not ended yet: the screen may still look ready for a moment
    // after Enter, but a second prompt now would be typed into a running turn.
    const pending =
      state.completion !== null &&
      state.completion.status !== 'completed' &&
      state.completion.status !== 'failed'
        ? state.completion.turnId
        : null;
    if ((status !== 'ready' || pending) && !opts.force) {
      const why = pending ? `turn ${pending} has not finished` : `readiness: ${status}`;
      throw new PanewardError('not_ready', `terminal ${this.id} is not ready (${why})`, {
        details: { readiness: status, pendingTurnId: pending },
      });
    }
    const signal = opts.signal;
    await this.o.source.transport.run(['send-keys', '-t', this.o.target, '-l', '--', text], {
      signal,
    });
    const turnId = this.pipeline.submit(this.now());
    await this.pressSubmit(signal);
    await this.confirmSubmitted(turnId, signal);
    return turnId;
  }

  private pressSubmit(signal?: AbortSignal): Promise<string> {
    return this.o.source.transport.run(
      ['send-keys', '-t', this.o.target, ...this.o.profile.submitKeys],
      {
        signal,
      },
    );
  }

  /**
   * Some CLIs draw their input box before they accept input and drop an Enter sent then. If
   * the turn shows no sign of starting and the prompt still sits in the box as a draft, press
   * submit once more.
   */
  private async confirmSubmitted(turnId: string, signal?: AbortSignal): Promise<void> {
    const cfg = this.pipeline.kernel.config;
    const started = (s: TerminalState) =>
      s.completion?.turnId !== turnId ||
      s.completion.status !== 'waiting' ||
      s.completion.sawWorking ||
      s.completion.sawProjectionChange;
    const waitMs = Math.max(1500, 3 * cfg.pollIntervalSeconds * 1000);
    const seen = await abortable(
      firstValueFrom(
        this.state$.pipe(
          filter(started),
          rxTimeout({ first: waitMs, scheduler: this.scheduler, with: () => from([null]) }),
        ),
      ),
      signal,
    );
    if (seen === null && this.state.surface.editingInput === 'yes') await this.pressSubmit(signal);
  }

  /** Resolves when that turn's completion actor has ended (and its outcome, if any, is in). */
  async waitForTurn(
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const cfg = this.pipeline.kernel.config;
    const ended = (s: TerminalState) =>
      s.completion?.turnId === turnId &&
      (s.completion.status === 'completed' || s.completion.status === 'failed');
    const wait = firstValueFrom(
      this.state$.pipe(
        filter(ended),
        rxTimeout({
          first: opts.timeoutMs ?? 600_000,
          scheduler: this.scheduler,
          with: () => {
            throw new PanewardError('timeout', `turn ${turnId} did not finish in time`);
          },
        }),
      ),
    );
    const endedState = await abortable(stoppedIfEmpty(wait, this.id, turnId), opts.signal);
    // The turn's own outcome settles at most one settle window (plus a poll) after completion.
    const graceMs = (cfg.settleSeconds + 2 * cfg.pollIntervalSeconds) * 1000;
    const settled = await abortable(
      firstValueFrom(
        this.state$.pipe(
          filter((s) => s.lastTurn.turnId === turnId || s.turn.current?.id !== turnId),
          rxTimeout({ first: graceMs, scheduler: this.scheduler, with: () => from([this.state]) }),
        ),
        { defaultValue: endedState },
      ),
      opts.signal,
    );
    const completion = (settled.completion?.turnId === turnId ? settled : endedState).completion!;
    return {
      turnId,
      result: completion.status === 'failed' ? 'failed' : 'completed',
      completion,
      lastTurn: settled.lastTurn,
    };
  }

  /** Sends the profile's interrupt keys. */
  async interrupt(): Promise<void> {
    await this.o.source.transport.run([
      'send-keys',
      '-t',
      this.o.target,
      ...this.o.profile.interruptKeys,
    ]);
  }

  /** An explicit resume after the watchdog fired. */
  resume(): void {
    this.pipeline.resumeSession(this.now());
  }
}

/** The state stream ended (terminal detached, restarted or stopped) before the turn did. */
async function stoppedIfEmpty<T>(p: Promise<T>, terminalId: string, turnId: string): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof EmptyError) {
      throw new PanewardError(
        'stopped',
        `terminal ${terminalId} stopped before turn ${turnId} finished`,
        { cause: err },
      );
    }
    throw err;
  }
}

function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new PanewardError('aborted', 'aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new PanewardError('aborted', 'aborted', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
