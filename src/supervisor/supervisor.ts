import { createActor, type Actor } from 'xstate';
import {
  BehaviorSubject,
  asyncScheduler,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { z } from 'zod';
import { supervisorMachine, type SupervisorEvent } from '../../machines/supervisor.js';
import { isPanewardError, PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { detectPaneTool, discoverPanes } from '../observe/discover.js';
import { createExecaTransport } from '../observe/execa-transport.js';
import { createPollingSource, type FrameSource } from '../observe/frame-source.js';
import type { TmuxTransport } from '../observe/transport.js';
import { getProfile, knownTools, type ProfileFactory } from '../profiles/index.js';
import { KernelConfig } from '../schemas/kernel.js';
import { Target } from '../schemas/target.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { WatchdogCancelRecord } from '../kernel/watchdog-driver.js';
import type { HistoryRecord } from '../tracker/pipeline.js';
import { TerminalRuntime, type TurnResult } from './terminal.js';

export const SupervisorOptions = z.object({
  /** tmux socket name (`-L`). */
  socketName: z.string().min(1).optional(),
  /** tmux socket path (`-S`). */
  socketPath: z.string().min(1).optional(),
  /** Timer and policy settings (statecharts.md §3) plus the session wall-clock budget. */
  config: KernelConfig.partial()
    .extend({ sessionWallClockSeconds: z.number().nonnegative().optional() })
    .optional(),
  /** Restart backoff: first delay and cap, in seconds. */
  restartBackoff: z
    .object({ initialSeconds: z.number().positive(), maxSeconds: z.number().positive() })
    .default({ initialSeconds: 0.5, maxSeconds: 30 }),
});
export type SupervisorOptionsInput = z.input<typeof SupervisorOptions> & {
  /** Use this transport instead of one built from the socket options. */
  transport?: TmuxTransport;
  scheduler?: SchedulerLike;
  /** Told about every watchdog cancellation (append it to a journal). */
  onWatchdogRecord?: (r: WatchdogCancelRecord) => void;
  /** Extra tool profiles by id (an agent CLI paneward does not ship a profile for). */
  profiles?: Readonly<Record<string, ProfileFactory>>;
};

export const AttachRequest = z.object({
  target: Target,
  tool: z.string().min(1).optional(),
  toolVersion: z.string().min(1).optional(),
  id: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash or underscore, at most 64')
    .optional(),
});
export type AttachRequest = z.input<typeof AttachRequest>;

/** A restart of a failed terminal actor, as recorded. */
export interface RestartRecord {
  terminalId: string;
  attempt: number;
  delaySeconds: number;
  error: string;
  at: string;
}

interface Entry {
  request: z.infer<typeof AttachRequest> & { id: string; tool: string };
  runtime: TerminalRuntime;
  bridge: Subscription;
  sessionStartedAtMs: number;
  state$: BehaviorSubject<TerminalState>;
  restartTimer: Subscription | null;
}

/**
 * The supervisor: one terminal actor per attached pane. Attach and detach at run time, read
 * and subscribe to each terminal's public state, submit prompts and wait for those turns.
 * A terminal whose actor fails is restarted with capped exponential backoff (recorded); it
 * never stops the supervisor or its siblings.
 */
export class Supervisor {
  private readonly options: z.infer<typeof SupervisorOptions>;
  private readonly transport: TmuxTransport;
  private readonly ownsTransport: boolean;
  private readonly source: FrameSource;
  private readonly scheduler: SchedulerLike;
  private readonly entries = new Map<string, Entry>();
  private readonly list$ = new BehaviorSubject<string[]>([]);
  private readonly restarts: RestartRecord[] = [];
  private readonly actor: Actor<typeof supervisorMachine>;
  /** Effects the machine's actions asked for; run once its transition has been taken. */
  private readonly effects: (() => void)[] = [];
  private nextId = 1;
  private readonly customProfiles: Readonly<Record<string, ProfileFactory>>;
  private readonly onWatchdogRecord: ((r: WatchdogCancelRecord) => void) | undefined;

  constructor(input: SupervisorOptionsInput = {}) {
    const parsed = SupervisorOptions.safeParse(input);
    if (!parsed.success) {
      throw new PanewardError(
        'invalid_input',
        `supervisor options: ${describeZodError(parsed.error)}`,
        {
          details: parsed.error.issues,
        },
      );
    }
    this.options = parsed.data;
    this.customProfiles = input.profiles ?? {};
    this.onWatchdogRecord = input.onWatchdogRecord;
    this.scheduler = input.scheduler ?? asyncScheduler;
    this.ownsTransport = !input.transport;
    this.transport =
      input.transport ??
      createExecaTransport({
        socketName: parsed.data.socketName,
        socketPath: parsed.data.socketPath,
      });
    this.source = createPollingSource({
      transport: this.transport,
      intervalMs: KernelConfig.parse(parsed.data.config ?? {}).pollIntervalSeconds * 1000,
      scheduler: this.scheduler,
    });
    this.actor = createActor(
      supervisorMachine.provide({
        actions: {
          // Deferred: inside an action the snapshot is still the old one (a restart would
          // record the previous error), and actors created there make xstate warn.
          spawn_terminal: (_, p) => this.effects.push(() => this.spawn(p.terminalId)),
          stop_terminal: (_, p) => this.effects.push(() => this.kill(p.terminalId)),
          schedule_restart: (_, p) =>
            this.effects.push(() => this.scheduleRestart(p.terminalId, p.attempt)),
          stop_all: () =>
            this.effects.push(() => {
              for (const id of [...this.entries.keys()]) this.kill(id);
            }),
        },
      }),
    );
    this.actor.start();
  }

  /** Attaches a pane; returns its terminal id. */
  attach(request: AttachRequest): string {
    this.assertRunning();
    const parsed = AttachRequest.safeParse(request);
    if (!parsed.success) {
      throw new PanewardError('invalid_input', `attach: ${describeZodError(parsed.error)}`, {
        details: parsed.error.issues,
      });
    }
    const id = parsed.data.id ?? `t${this.nextId++}`;
    if (this.entries.has(id)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`id\`: terminal ${id} is already attached`,
      );
    }
    const tool = parsed.data.tool ?? 'unsupported';
    this.pending = { ...parsed.data, id, tool };
    this.send({ type: 'evt_attach', terminalId: id });
    this.pending = null;
    this.list$.next([...this.entries.keys()]);
    return id;
  }

  /**
   * The tool whose process runs in the pane (custom profiles first), or `unsupported`, also when
   * tmux cannot read the pane. Rejects with `internal` when /proc cannot be read.
   */
  async detectTool(target: string): Promise<string> {
    try {
      const found = await detectPaneTool(this.transport, target, this.discoverable());
      return found.tool ?? 'unsupported';
    } catch (error) {
      if (isPanewardError(error) && error.code.startsWith('tmux_')) return 'unsupported';
      throw error;
    }
  }

  /** Finds panes that run a known agent CLI and attaches each one not attached yet. */
  async discover(): Promise<string[]> {
    const panes = await discoverPanes(this.transport, this.discoverable());
    const attachedTargets = new Set([...this.entries.values()].map((e) => e.request.target));
    const ids: string[] = [];
    for (const pane of panes) {
      if (attachedTargets.has(pane.paneId) || attachedTargets.has(pane.target)) continue;
      ids.push(this.attach({ target: pane.paneId, tool: pane.tool }));
    }
    return ids;
  }

  detach(id: string): void {
    this.entry(id);
    this.send({ type: 'evt_detach', terminalId: id });
    this.list$.next([...this.entries.keys()]);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Ids of attached terminals, as they change. */
  get terminals$(): Observable<string[]> {
    return this.list$.asObservable();
  }

  get(id: string): TerminalState {
    return this.entry(id).state$.getValue();
  }

  /** The terminal's public state, now and on every change (survives restarts). */
  state$(id: string): Observable<TerminalState> {
    return this.entry(id).state$.asObservable();
  }

  history(id: string, limit?: number): HistoryRecord[] {
    return this.entry(id).runtime.history(limit);
  }

  restartLog(): RestartRecord[] {
    return this.restarts.slice();
  }

  /** Types a prompt literally and submits it; refused unless readiness is `ready` (or `force`). */
  async submit(
    id: string,
    text: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<string> {
    if (typeof text !== 'string' || text.length === 0) {
      throw new PanewardError(
        'invalid_input',
        'submit: field `text`: a non-empty string is required',
      );
    }
    return this.entry(id).runtime.submit(text, opts);
  }

  /** Waits for that turn's completion actor to end. */
  waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    return this.entry(id).runtime.waitForTurn(turnId, opts);
  }

  /** Submits `prompt` and waits for that turn to finish. */
  async runTurn(
    id: string,
    prompt: string,
    opts: { timeoutMs?: number; signal?: AbortSignal; force?: boolean } = {},
  ): Promise<TurnResult> {
    const turnId = await this.submit(id, prompt, opts);
    return this.waitForTurn(id, turnId, opts);
  }

  interrupt(id: string): Promise<void> {
    return this.entry(id).runtime.interrupt();
  }

  /** Resumes a session the watchdog blocked: a fresh wall-clock window. */
  resume(id: string): void {
    this.entry(id).runtime.resume();
  }

  /** Stops every terminal and the supervisor. */
  async stop(): Promise<void> {
    if (this.actor.getSnapshot().status !== 'active') return;
    this.send({ type: 'evt_stop' });
    this.list$.next([]);
    this.list$.complete();
    this.actor.stop();
    await this.source.close();
    if (this.ownsTransport) await this.transport.close();
  }

  private pending: Entry['request'] | null = null;

  private spawn(id: string): void {
    const previous = this.entries.get(id);
    const request = previous?.request ?? this.pending;
    if (!request) return;
    previous?.bridge.unsubscribe();
    previous?.runtime.dispose();
    const sessionStartedAtMs = previous?.sessionStartedAtMs ?? Date.now();
    const runtime = new TerminalRuntime({
      terminalId: id,
      target: request.target,
      profile:
        this.customProfiles[request.tool]?.(request.toolVersion) ??
        getProfile(request.tool, request.toolVersion),
      toolVersion: request.toolVersion,
      source: this.source,
      config: this.options.config,
      scheduler: this.scheduler,
      sessionStartedAtMs,
      onWatchdogRecord: (r) => this.onWatchdogRecord?.(r),
    });
    const state$ = previous?.state$ ?? new BehaviorSubject(runtime.state);
    const bridge = runtime.state$.subscribe((s) => state$.next(s));
    const entry: Entry = {
      request,
      runtime,
      bridge,
      sessionStartedAtMs,
      state$,
      restartTimer: null,
    };
    this.entries.set(id, entry);
    runtime.start((err) => {
      this.send({
        type: 'evt_terminal_failed',
        terminalId: id,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }

  private kill(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    e.restartTimer?.unsubscribe();
    e.bridge.unsubscribe();
    e.runtime.dispose();
    e.state$.complete();
    this.entries.delete(id);
  }

  private scheduleRestart(id: string, attempt: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    e.runtime.stop();
    const { initialSeconds, maxSeconds } = this.options.restartBackoff;
    const delaySeconds = Math.min(maxSeconds, initialSeconds * 2 ** (attempt - 1));
    const ctx = this.actor.getSnapshot().context.terminals[id];
    this.restarts.push({
      terminalId: id,
      attempt,
      delaySeconds,
      error: ctx?.lastError ?? 'unknown',
      at: new Date().toISOString(),
    });
    e.restartTimer = this.scheduler.schedule(() => {
      this.send({ type: 'evt_restart_due', terminalId: id });
    }, delaySeconds * 1000);
  }

  /** Sends an event to the supervisor machine, then runs the effects its transition asked for. */
  private send(event: SupervisorEvent): void {
    this.actor.send(event);
    for (let effect = this.effects.shift(); effect; effect = this.effects.shift()) effect();
  }

  private discoverable(): Array<{ id: string; processNames: readonly string[] }> {
    const custom = Object.entries(this.customProfiles).map(([id, factory]) => ({
      id,
      processNames: factory().processNames,
    }));
    return [...custom, ...knownTools()];
  }

  private entry(id: string): Entry {
    const e = this.entries.get(id);
    if (!e) throw new PanewardError('unknown_terminal', `no terminal with id ${id}`);
    return e;
  }

  private assertRunning(): void {
    if (this.actor.getSnapshot().status !== 'active') {
      throw new PanewardError('stopped', 'the supervisor has been stopped');
    }
  }
}

/** Creates a supervisor (see {@link SupervisorOptions}). */
export function createSupervisor(options: SupervisorOptionsInput = {}): Supervisor {
  return new Supervisor(options);
}

export type { TurnResult };
