import {
  EMPTY,
  Subject,
  asyncScheduler,
  type Subscription,
  filter,
  firstValueFrom,
  from,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { createActor, fromPromise, type Actor } from 'xstate';
import { supervisorMachine } from '../../machines/supervisor.js';
import { isPanewardError, PanewardError } from '../errors.js';
import { scheduleLong } from '../internal/long-timer.js';
import { defaultDataDir } from '../journal/data-dir.js';
import { Journal } from '../journal/journal.js';
import { InspectionHub } from '../kernel/chart-runner.js';
import type { FrameSource, SourceHealth } from '../observe/frame-source.js';
import type { TmuxTransport } from '../observe/transport.js';
import type { KernelConfig } from '../schemas/kernel.js';
import type { JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { gate } from '../terminal/operations.js';
import type { TerminalCommands } from '../terminal/commands.js';
import { ClaimRegistry } from '../sessions/observer.js';
import { provideTerminal, RunningTerminals } from '../terminal/runtime.js';
import { readoptedRequest, TerminalActors } from './terminals.js';
import { Attach } from './attach.js';
import { openSource } from './source.js';
import type { AttachRequest, SupervisorOptions } from './options.js';
import {
  parseSupervisorOptions,
  type RestartRecord,
  type SupervisorOptionsInput,
  type Telemetry,
} from './options.js';
import { ToolCatalog } from './tools.js';
import { Spawner } from './spawn.js';
import { supervisorRespawnCharts } from './respawn.js';
import type { Spawned, SpawnRequest, StopAnswer, StopInput } from '../schemas/spawn.js';
import { TurnPayloadStore } from './payloads.js';
import { checkCompletionObservers } from '../terminal/observers.js';
import type { z } from 'zod';

/**
 * The supervisor's actor system and what it is built of: the journal, the frame source, the
 * tools, the terminal actors, attach, spawn and stop, and reading each terminal's state and
 * records. What is asked of one terminal (prompts, turns, interrupts, answers, witnesses from
 * outside) is {@link Supervisor}'s.
 */
export abstract class SupervisorSystem {
  private readonly options: z.infer<typeof SupervisorOptions>;
  protected readonly config: KernelConfig;
  protected readonly transport: TmuxTransport;
  private readonly ownsTransport: boolean;
  protected readonly scheduler: SchedulerLike;
  private readonly source: FrameSource;
  private readonly tools: ToolCatalog;
  private readonly actor: Actor<typeof supervisorMachine>;
  protected readonly terminals: TerminalActors;
  private readonly attacher: Attach;
  private readonly spawner: Spawner;
  private readonly restarts: RestartRecord[] = [];
  /** Panes that read no input, and why. */
  protected readonly readsNoInput = new Map<string, string>();
  /** The record stream: durable when the supervisor has a data directory. */
  readonly journal: Journal;
  private readonly telemetry = new Subject<Telemetry>();
  /** How long samples and journal appends take (for metrics). */
  readonly telemetry$: Observable<Telemetry> = this.telemetry.asObservable();
  private discovery: Subscription | null = null;
  private stopping: Promise<void> | null = null;
  /**
   * The frame source's own health, current value first: whether paneward itself falls behind
   * (`lagging`, `lagMs`, `backlog`). Its own overload, never reported as an agent's state.
   */
  readonly observer$: Observable<SourceHealth>;
  private readonly observerSub: Subscription;
  private observerHealth: SourceHealth | null = null;
  /** The commands of each terminal whose runtime runs now. */
  protected readonly running = new RunningTerminals();
  /** Each terminal's latest turns' payloads, in memory only (docs/contracts.md §6). */
  protected readonly payloads = new TurnPayloadStore();

  constructor(input: SupervisorOptionsInput = {}) {
    const { transport, scheduler, profiles, inspect, spawnEnv, completionObservers, ...rest } =
      input;
    const parsed = parseSupervisorOptions(rest);
    const observers = checkCompletionObservers(completionObservers);
    this.options = parsed.options;
    this.config = parsed.config;
    this.tools = new ToolCatalog(profiles ?? {}, this.options.verifiedOnly);
    this.scheduler = scheduler ?? asyncScheduler;
    this.journal = new Journal({
      dataDir: this.options.dataDir === undefined ? defaultDataDir() : this.options.dataDir,
      scheduler: this.scheduler,
      onAck: (ms) => this.telemetry.next({ kind: 'append', ms }),
    });
    this.ownsTransport = !transport;
    ({ transport: this.transport, source: this.source } = openSource(
      this.options,
      this.config,
      transport,
      scheduler,
    ));
    this.observer$ = this.source.health$ ?? EMPTY;
    this.observerSub = this.observer$.subscribe((h) => (this.observerHealth = h));
    const hub = new InspectionHub(inspect);
    const terminal = provideTerminal({
      source: this.source,
      journal: this.journal,
      hub,
      scheduler: this.scheduler,
      config: this.config,
      profileFor: (tool, version) => this.tools.profileFor(tool, version),
      detectTool: (target) => this.detectTool(target),
      onSample: (terminalId, ms) => this.telemetry.next({ kind: 'sample', terminalId, ms }),
      running: this.running,
      completionAuthority: this.options.completionAuthority,
      sessionClaims: new ClaimRegistry(),
      completionObservers: observers,
      onPayload: (payload) => this.payloads.put(payload),
    });
    const journal = this.journal;
    this.actor = createActor(
      supervisorMachine.provide({
        actors: { terminal, flush: fromPromise(() => journal.flush()) },
      }),
      {
        id: 'supervisor',
        systemId: 'supervisor',
        inspect: hub.inspect,
        clock: {
          setTimeout: (fn, ms) => scheduleLong(this.scheduler, fn, ms),
          clearTimeout: (sub: { unsubscribe(): void }) => sub.unsubscribe(),
        },
      },
    );
    this.actor.start();
    void this.record({ kind: 'supervisor.started', terminalId: null, pid: process.pid });
    this.terminals = new TerminalActors(this.actor, {
      journal: this.journal,
      scheduler: this.scheduler,
      config: this.config,
      backoff: this.options.restartBackoff,
      onRestart: (rec) => this.restarts.push(rec),
    });
    this.attacher = new Attach({
      transport: this.transport,
      tools: this.tools,
      terminals: this.terminals,
      config: this.config,
      scheduler: this.scheduler,
      defaultBudgetSeconds: this.options.config?.sessionWallClockSeconds ?? 0,
      assertRunning: () => this.assertRunning(),
      detach: (id) => {
        this.payloads.forget(id);
        void this.record({ kind: 'terminal.detached', terminalId: id });
        this.actor.send({ type: 'evt_detach', terminalId: id });
      },
    });
    this.spawner = new Spawner({
      transport: this.transport,
      journal: this.journal,
      scheduler: this.scheduler,
      env: spawnEnv ?? process.env,
      attach: (request) => this.attach(request),
      state$: (id) => this.state$(id),
      get: (id) => this.get(id),
      takenIds: () => this.terminals.takenIds(),
      detach: (id) => this.detach(id),
      commandsOf: (id) => this.commandsOf(id),
      toolOf: (id) => this.get(id).tool,
      paneOf: (id) => this.terminals.paneOf(id),
      assertRunning: () => this.assertRunning(),
      respawnCharts: supervisorRespawnCharts(this.actor),
    });
    // Re-adoption: every terminal attached and not detached continues where it was.
    const readopted = this.journal.index.attached();
    for (const [id, facts] of readopted) this.terminals.spawn(id, readoptedRequest(facts), true);
    void this.attacher.dropVanished(
      readopted.map(([id]) => id),
      () => this.stopping !== null,
    );
  }

  /**
   * Attaches a pane; resolves to its terminal id once the pane is prepared. The target must be
   * a pane of this supervisor's tmux server (rejected with `invalid_input` naming `target`
   * otherwise, before anything is recorded). Without `tool`, the pane's processes name it. A
   * pane is one terminal whatever it is called (`%3`, `agents:0.1`): attaching one already
   * attached answers its terminal when the request asks for nothing else (no other id, no
   * other tool), and is refused naming `target` when it does.
   */
  async attach(request: AttachRequest): Promise<string> {
    return this.attacher.attach(request);
  }

  /**
   * Starts an agent CLI in a new tmux window the way its launch recipe says (argv, never a
   * shell string) and attaches it: a terminal of paneward's own, with the watchdog's default
   * budget (14,400 s) and its restart policy. Resolves once it is `ready`, or `blocked` on a
   * first-run question; rejects with `timeout` (naming `readyTimeoutSeconds`) or `not_ready`
   * (it died first), the terminal staying attached. See docs/spawn.md.
   */
  spawn(request: SpawnRequest): Promise<{ terminalId: string; spawned: Spawned }> {
    return this.spawner.spawn(request);
  }

  /**
   * Ends a terminal's CLI with its own exit command (typed with the same checks as a prompt),
   * waits for it to end (bounded, then its window is killed anyway), closes its window and
   * detaches. Refused (`refused`) for a pane paneward did not start unless `force`.
   */
  stopTerminal(input: StopInput): Promise<StopAnswer> {
    return this.spawner.stop(input);
  }

  /** What paneward started in a terminal's pane; null for a pane it only attached. */
  spawnedOf(id: string): Spawned | null {
    return this.spawner.spawnedOf(id);
  }

  /**
   * The id `%N` of a terminal's pane on its tmux server, resolved when it was attached; null
   * when unknown. tmux keeps it for the pane's life, whatever becomes of its window's index.
   */
  paneIdOf(id: string): string | null {
    return this.terminals.paneOf(id) ?? null;
  }

  /** @deprecated The same as {@link Supervisor.attach}, under its former name. */
  attachPane(request: AttachRequest): Promise<string> {
    return this.attach(request);
  }

  /**
   * Keeps discovering: every `intervalSeconds`, panes that run a known agent CLI and are not
   * attached yet are attached (agents started later are picked up). Stopped by `stop()`. A
   * round that fails (tmux answers what cannot be read, say) attaches nothing and is told to
   * `onError`, once per distinct failure.
   */
  discoverContinuously(intervalSeconds = 5, onError?: (error: unknown) => void): void {
    this.assertRunning();
    const every = this.attacher.discoverEvery(intervalSeconds, onError);
    this.discovery?.unsubscribe();
    this.discovery = every.subscribe();
  }

  /**
   * The tool whose process runs in the pane (custom profiles first), or `unsupported`, also when
   * tmux cannot read the pane. Rejects with `internal` when /proc cannot be read.
   */
  detectTool(target: string): Promise<string> {
    return this.attacher.detectTool(target);
  }

  /**
   * Whether this supervisor's tmux server runs now: true, false (no server on its socket), or
   * null when tmux could not be asked (it did not answer in time, say).
   */
  async tmuxServerRunning(): Promise<boolean | null> {
    try {
      await this.transport.run(['list-sessions', '-F', '#{session_id}']);
      return true;
    } catch (error) {
      if (isPanewardError(error) && error.code === 'tmux_missing') return false;
      return null;
    }
  }

  /** Finds panes that run a known agent CLI and attaches each one not attached yet. */
  discover(): Promise<string[]> {
    return this.attacher.discover();
  }

  /** Stops supervising a terminal (recorded: a restarted supervisor will not re-attach it). */
  detach(id: string): void {
    const refused = gate(this.get(id), 'detach');
    if (refused !== null) {
      throw new PanewardError('refused', `terminal ${id} refuses detach: ${refused.reason}`);
    }
    this.readsNoInput.delete(id);
    this.spawner.forget(id);
    this.payloads.forget(id);
    void this.record({ kind: 'terminal.detached', terminalId: id });
    this.actor.send({ type: 'evt_detach', terminalId: id });
  }

  /** Ids of attached terminals. */
  ids(): string[] {
    return this.terminals.ids();
  }

  /** Ids of attached terminals, as they change. */
  get terminals$(): Observable<string[]> {
    return this.terminals.ids$();
  }

  /** The frame source's health now (null before its first report). */
  observer(): SourceHealth | null {
    return this.observerHealth;
  }

  get(id: string): TerminalState {
    return this.terminals.state(id);
  }

  /** The terminal's public state, now and on every change (survives runtime restarts). */
  state$(id: string): Observable<TerminalState> {
    return this.terminals.state$(id);
  }

  /** The terminal's latest records (durable), oldest first. */
  history(id: string, limit?: number): JournalRecord[] {
    this.terminals.get(id);
    return this.journal.recent(id, limit);
  }

  /** Acknowledged records after `afterSeq`, then each new one as it is made durable. */
  records$(afterSeq = 0, terminalId?: string): Observable<JournalRecord> {
    return this.journal.follow(afterSeq, terminalId);
  }

  restartLog(): RestartRecord[] {
    return this.restarts.slice();
  }

  /** Stops every terminal and the supervisor; everything recorded is durable when it resolves. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.discovery?.unsubscribe();
      this.spawner.close();
      this.actor.send({ type: 'evt_stop' });
      await firstValueFrom(from(this.actor).pipe(filter((s) => s.status === 'done')), {
        defaultValue: null,
      });
      await this.journal.close();
      this.observerSub.unsubscribe();
      await this.source.close();
      if (this.ownsTransport) await this.transport.close();
      this.telemetry.complete();
    })();
    return this.stopping;
  }

  /** The commands of a terminal whose runtime runs; refused (`not_ready`) while it is attaching or restarting. */
  protected commandsOf(id: string): TerminalCommands {
    this.terminals.get(id);
    const commands = this.running.get(id);
    if (!commands) {
      throw new PanewardError('not_ready', `terminal ${id} is not running (restarting)`);
    }
    return commands;
  }

  private record(draft: Parameters<Journal['append']>[0]): Promise<JournalRecord | null> {
    return this.journal.append(draft).catch(() => null);
  }

  protected assertRunning(): void {
    if (this.stopping || this.actor.getSnapshot().status !== 'active') {
      throw new PanewardError('stopped', 'the supervisor has been stopped');
    }
  }
}
