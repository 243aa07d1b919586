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
import type { AnsweredBy } from '../schemas/record.js';
import type { AnswerResult } from '../terminal/commands.js';
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
import {
  gate,
  operationsFor,
  type Operations,
  type TerminalFacts,
} from '../terminal/operations.js';
import type { TerminalCommands } from '../terminal/commands.js';
import { ClaimRegistry } from '../sessions/observer.js';
import { provideTerminal, RunningTerminals } from '../terminal/runtime.js';
import { DEFAULT_WITNESS_WINDOW_SECONDS } from '../terminal/witness.js';
import { readoptedRequest, TerminalActors } from './terminals.js';
import { Attach } from './attach.js';
import { openSource } from './source.js';
import type { AttachRequest, SupervisorOptions } from './options.js';
import {
  checkSubmit,
  invalid,
  parseSupervisorOptions,
  WaitOptions,
  type RestartRecord,
  type SupervisorOptionsInput,
  type Telemetry,
  type TurnResult,
} from './options.js';
import { ToolCatalog } from './tools.js';
import { Spawner } from './spawn.js';
import type { Spawned, SpawnRequest, StopAnswer, StopInput } from '../schemas/spawn.js';
import { answered, waitForTurn } from './turns.js';
import { TurnPayloadStore } from './payloads.js';
import { MAX_TURN_PAYLOADS, type TurnPayload } from '../schemas/turn-payload.js';
import { takeHookEvent } from '../hooks/intake.js';
import type { HookAnswer, HookEventBody } from '../schemas/hook.js';
import { ObservationBody, type ObservationAnswer } from '../schemas/observer-ending.js';
import type { RecordedEnding } from '../profiles/session-record.js';
import { checkCompletionObservers } from '../terminal/observers.js';
import type { z } from 'zod';

export {
  AttachRequest,
  SupervisorOptions,
  type RestartRecord,
  type SupervisorOptionsInput,
  type Telemetry,
  type TurnResult,
} from './options.js';

/**
 * The supervisor: an XState actor system whose root (the supervisor actor) spawns one terminal
 * actor per attached pane, each owning its statechart actors. Attach and detach at run time,
 * read and subscribe to each terminal's public state, submit prompts and wait for those turns.
 * Everything that happens is a record in one durable stream (the journal); a supervisor
 * started on the same data directory re-attaches what was attached and continues from it.
 */
export class Supervisor {
  private readonly options: z.infer<typeof SupervisorOptions>;
  private readonly config: KernelConfig;
  private readonly transport: TmuxTransport;
  private readonly ownsTransport: boolean;
  private readonly scheduler: SchedulerLike;
  private readonly source: FrameSource;
  private readonly tools: ToolCatalog;
  private readonly actor: Actor<typeof supervisorMachine>;
  private readonly terminals: TerminalActors;
  private readonly attacher: Attach;
  private readonly spawner: Spawner;
  private readonly restarts: RestartRecord[] = [];
  /** Panes that read no input, and why. */
  private readonly readsNoInput = new Map<string, string>();
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
  private readonly running = new RunningTerminals();
  /** Each terminal's latest turns' payloads, in memory only (docs/contracts.md §6). */
  private readonly payloads = new TurnPayloadStore();

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

  /**
   * Types a prompt literally and submits it; refused (`not_ready`) unless readiness is `ready`,
   * no turn submitted through paneward is still running, and the watchdog has not blocked the
   * session (`force: true` overrides). Every input is checked before anything is typed.
   */
  async submit(
    id: string,
    text: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<string> {
    const o = checkSubmit(text, opts);
    this.terminals.get(id);
    if (o.signal?.aborted) throw new PanewardError('aborted', 'aborted');
    const commands = this.commandsOf(id);
    return answered(commands.submit({ text, force: o.force ?? false, ...this.factsOf(id) }));
  }

  /** Waits for that turn's completion actor to end, then for the turn's own outcome. */
  async waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const o = WaitOptions.safeParse(opts);
    if (!o.success) throw invalid('waitForTurn', o.error);
    if (!this.knowsTurn(id, turnId)) {
      throw new PanewardError(
        'unknown_turn',
        `waitForTurn: field \`turnId\`: terminal ${id} has no turn ${turnId} (not its current, last or a recent one)`,
        { details: { terminalId: id, turnId } },
      );
    }
    const ended = await waitForTurn(this.state$(id), id, turnId, o.data, {
      scheduler: this.scheduler,
      // The turn's own outcome settles at most one settle window (plus two polls) after
      // completion, or a witness window when the session record decides what the screen cannot
      // tell (Cline draws an interrupted reply like a finished one).
      graceMs:
        (this.config.settleSeconds +
          DEFAULT_WITNESS_WINDOW_SECONDS +
          2 * this.config.pollIntervalSeconds) *
        1000,
      current: () => this.get(id),
    });
    return { ...ended, payload: this.payloads.get(id, turnId) ?? null };
  }

  /**
   * What a turn answered (docs/contracts.md §6): its reply text (from the session record where
   * the CLI writes one, else the screen), outcome, evidence and timing; `ended: false` while it
   * runs. Kept in memory for the terminal's latest 20 turns: an older turn, one from before a
   * restart, or one the terminal never had is `unknown_turn`, the message saying which.
   */
  turnPayload(id: string, turnId: string): TurnPayload {
    this.terminals.get(id);
    const kept = this.payloads.get(id, turnId);
    if (kept) return kept;
    const known = this.knowsTurn(id, turnId);
    throw new PanewardError(
      'unknown_turn',
      known
        ? `terminal ${id}'s turn ${turnId} is no longer kept: payloads are kept in memory for the latest ${MAX_TURN_PAYLOADS} turns since the supervisor started`
        : `field \`turnId\`: terminal ${id} has no turn ${turnId}`,
      { details: { terminalId: id, turnId, kept: this.payloads.turnIds(id) } },
    );
  }

  /**
   * Whether `turnId` is a turn of this terminal: its current one, the one its completion is
   * about, its last one, or one its recent records name. Waiting on any other could only time out.
   */
  private knowsTurn(id: string, turnId: string): boolean {
    const s = this.get(id);
    if (
      s.turn.current?.id === turnId ||
      s.completion?.turnId === turnId ||
      s.lastTurn.turnId === turnId
    ) {
      return true;
    }
    return this.journal
      .recent(id)
      .some(
        (r) =>
          (r.kind === 'turn.started' || r.kind === 'turn.ended' || r.kind === 'turn.reopened') &&
          r.turnId === turnId,
      );
  }

  /** Submits `prompt` and waits for that turn to finish. */
  async runTurn(
    id: string,
    prompt: string,
    opts: { timeoutMs?: number; signal?: AbortSignal; force?: boolean } = {},
  ): Promise<TurnResult> {
    const { force, ...wait } = opts;
    const w = WaitOptions.safeParse(wait);
    if (!w.success) throw invalid('runTurn', w.error);
    const turnId = await this.submit(id, prompt, { force, signal: opts.signal });
    return this.waitForTurn(id, turnId, wait);
  }

  /**
   * Sends the profile's interrupt keys; refused (`refused`) unless a turn is running (the
   * `interrupt` verdict), or `force: true`.
   */
  async interrupt(id: string, opts: { force?: boolean } = {}): Promise<void> {
    const commands = this.commandsOf(id);
    await answered(commands.interrupt({ force: opts.force === true }));
  }

  /**
   * Answers the question a dialog on the terminal's screen asks, with one of its choices
   * (docs/questions.md): typed only while that very dialog is drawn, by the profile's keys;
   * refused (`refused`) otherwise, `invalid_input` naming `choice` for a choice it does not
   * offer, `answer_failed` when the dialog did not close.
   */
  async answer(
    id: string,
    request: { questionId: string; choice: string; by?: AnsweredBy },
  ): Promise<AnswerResult> {
    const commands = this.commandsOf(id);
    return answered(
      commands.answer({
        questionId: request.questionId,
        choice: request.choice,
        by: request.by ?? { via: 'library', tokenId: null },
        ...this.factsOf(id),
      }),
    );
  }

  /**
   * The operations the terminal accepts now, as the gate decides them for its actions (the
   * public state's verdicts and what the supervisor was told of the pane).
   */
  operations(id: string): Operations {
    return operationsFor(this.get(id), this.factsOf(id));
  }

  /**
   * Marks a pane as one that reads no input (a recording plays in it, say): every prompt to it
   * is refused with `reason`, forced or not, and its `sendInput` verdict says so.
   */
  refuseInput(id: string, reason: string): void {
    this.terminals.get(id);
    this.readsNoInput.set(id, reason);
  }

  private factsOf(id: string): TerminalFacts {
    const why = this.readsNoInput.get(id);
    return why === undefined ? {} : { readsNoInput: why };
  }

  /**
   * The pane's latest capture (plain text, as `capture-pane -p` prints it) and its observation
   * time; null before the first. Screens can hold secrets: they are never journaled.
   */
  async screen(id: string): Promise<{ text: string; t: number } | null> {
    return this.commandsOf(id).screen();
  }

  /**
   * Resumes a session the watchdog blocked: a fresh wall-clock window. Refused (`refused`)
   * when the session is not blocked.
   */
  async resume(id: string): Promise<void> {
    const commands = this.commandsOf(id);
    await answered(commands.resume());
  }

  /**
   * Takes an event a CLI's hook posted (docs/hooks.md): the terminal supervising the pane it
   * ran in gets it as a witness of its turns. Nothing is typed. An unknown tool, another tmux
   * server or an unsupervised pane is refused (`invalid_input`, `unknown_terminal`).
   */
  hookEvent(tool: string, body: HookEventBody): Promise<HookAnswer> {
    this.assertRunning();
    return takeHookEvent(
      {
        serverOf: async (pane) => {
          const out = await this.transport
            .run(['display-message', '-p', '-t', pane, '#{pid}\t#{socket_path}'])
            .catch(() => null);
          const [pid, socketPath] = (out ?? '').trim().split('\t');
          return pid && socketPath ? { pid: Number(pid), socketPath } : null;
        },
        terminals: () =>
          this.ids().map((id) => ({
            id,
            pane: this.terminals.paneOf(id),
            tool: this.get(id).tool,
          })),
        deliver: (id, event) => this.running.get(id)?.hookEvent(event) ?? false,
      },
      tool,
      body,
    );
  }

  /**
   * Takes an ending a completion observer outside the process tells (docs/witness.md;
   * `POST /v1/terminals/{id}/observations`): a witness of the terminal's open turn under its
   * completion authority, as a library observer's ending is. Nothing is typed. Refused
   * (`refused`) for a turn that is not the open one; `ignored` under `surface`, or when an
   * observer already ended the turn.
   */
  async observerEnding(id: string, body: ObservationBody): Promise<ObservationAnswer> {
    this.assertRunning();
    const parsed = ObservationBody.safeParse(body);
    if (!parsed.success) throw invalid('observerEnding', parsed.error);
    const b = parsed.data;
    const commands = this.commandsOf(id);
    const ending: RecordedEnding =
      b.reason === 'known_failure' ? { reason: b.reason, kind: b.kind! } : { reason: b.reason };
    const why = commands.observerEnding({ turnId: b.turnId, observer: b.observer, ending });
    if (why === 'not_current_turn') {
      const current = this.get(id).turn.current?.id ?? null;
      throw new PanewardError(
        'refused',
        current === null
          ? `field \`turnId\`: terminal ${id} has no open turn (${b.turnId} is not running): nothing was taken`
          : `field \`turnId\`: ${b.turnId} is not the open turn of terminal ${id} (${current} is): nothing was taken`,
        {
          details: {
            field: 'turnId',
            reason: 'not_current_turn',
            turnId: b.turnId,
            currentTurnId: current,
          },
        },
      );
    }
    return {
      terminalId: id,
      turnId: b.turnId,
      ...(why === null ? { taken: 'turn_ended' as const } : { taken: 'ignored' as const, why }),
    };
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
  private commandsOf(id: string): TerminalCommands {
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

  private assertRunning(): void {
    if (this.stopping || this.actor.getSnapshot().status !== 'active') {
      throw new PanewardError('stopped', 'the supervisor has been stopped');
    }
  }
}

/** Creates a supervisor (see {@link SupervisorOptions}). */
export function createSupervisor(options: SupervisorOptionsInput = {}): Supervisor {
  return new Supervisor(options);
}
