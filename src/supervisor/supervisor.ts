import {
  EMPTY,
  EmptyError,
  Subject,
  asyncScheduler,
  defer,
  exhaustMap,
  interval,
  startWith,
  type Subscription,
  distinctUntilChanged,
  filter,
  firstValueFrom,
  from,
  map,
  timeout as rxTimeout,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import {
  createActor,
  fromPromise,
  type Actor,
  type AnyActorRef,
  type InspectionEvent,
} from 'xstate';
import { supervisorMachine } from '../../machines/supervisor.js';
import type { TerminalContext, TerminalInput } from '../../machines/terminal.js';
import { isPanewardError, PanewardError } from '../errors.js';
import { clampBudgetSeconds, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { scheduleLong } from '../internal/long-timer.js';
import { describeZodError } from '../internal/zod-errors.js';
import { defaultDataDir } from '../journal/data-dir.js';
import { Journal } from '../journal/journal.js';
import { InspectionHub } from '../kernel/chart-runner.js';
import { detectPaneTool, discoverPanes } from '../observe/discover.js';
import { createExecaTransport } from '../observe/execa-transport.js';
import { createFrameSource, type FrameSource, type SourceHealth } from '../observe/frame-source.js';
import type { TmuxTransport } from '../observe/transport.js';
import { getProfile, knownTools, type ProfileFactory } from '../profiles/index.js';
import { ChartSettings, chartSettingsConflict, KernelConfig } from '../schemas/kernel.js';
import type { JournalRecord } from '../schemas/record.js';
import { PromptText } from '../schemas/prompt.js';
import { Target } from '../schemas/target.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { initialState, sameState } from '../terminal/state.js';
import { gate, operationsFor, type Operations, type TerminalFacts } from './operations.js';
import type { TerminalCommands } from '../terminal/commands.js';
import { provideTerminal, RunningTerminals } from '../terminal/runtime.js';
import { commandError } from '../terminal/typing.js';
import { z } from 'zod';

export const SupervisorOptions = z.strictObject({
  /** tmux socket name (`-L`). */
  socketName: z.string().min(1).optional(),
  /** tmux socket path (`-S`). */
  socketPath: z.string().min(1).optional(),
  /**
   * Where the journal lives. Default `$XDG_STATE_HOME/paneward` (else `~/.local/state/paneward`);
   * `null` keeps records in memory only (nothing survives the process).
   */
  dataDir: z.string().min(1).nullable().optional(),
  /** Timer and policy settings (statecharts.md §3) plus the default session wall-clock budget. */
  config: KernelConfig.partial()
    .extend({
      /** Budget given to every terminal attached without its own; 0 or absent: no watchdog. */
      sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
    })
    .strict()
    .optional(),
  /**
   * Read the screens of an agent CLI newer than every version its profile was verified against.
   * Off by default: such a pane reads as unrecognised (readiness `unknown`, never a success).
   */
  readUnverifiedVersions: z.boolean().default(false),
  /**
   * Where frames come from: `control` (one `tmux -C` client per server, panes captured when
   * they change) or `polling` (a tmux process per pane per interval). Control mode needs the
   * supervisor's own transport on a real clock; with a transport or scheduler of the caller's,
   * polling is used.
   */
  source: z.enum(['control', 'polling']).default('control'),
  /** Restart backoff of a terminal's runtime: first delay and cap, in seconds. */
  restartBackoff: z
    .strictObject({
      initialSeconds: z.number().positive().max(3600),
      maxSeconds: z.number().positive().max(3600),
    })
    .default({ initialSeconds: 0.5, maxSeconds: 30 }),
});
export type SupervisorOptionsInput = z.input<typeof SupervisorOptions> & {
  /** Use this transport instead of one built from the socket options. */
  transport?: TmuxTransport;
  /** The one clock: wakes every timer and stamps every record (epoch ms). */
  scheduler?: SchedulerLike;
  /** Extra tool profiles by id (an agent CLI paneward does not ship a profile for). */
  profiles?: Readonly<Record<string, ProfileFactory>>;
  /**
   * Sees every event of the actor system (supervisor → terminals → charts), as XState's
   * `inspect` option: pass `createBrowserInspector().inspect` or any observer.
   */
  inspect?: (event: InspectionEvent) => void;
};

export const AttachRequest = z.strictObject({
  target: Target,
  /** Profile id; detected from the pane's processes when absent. */
  tool: z.string().min(1).optional(),
  toolVersion: z.string().min(1).optional(),
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'a letter or digit, then letters, digits, dot, dash or underscore, at most 64 in all',
    )
    .optional(),
  /** Session wall-clock budget for this terminal (statecharts.md §7), at most 30 days; 0: no watchdog. */
  sessionWallClockSeconds: z.number().nonnegative().max(MAX_BUDGET_SECONDS).optional(),
  /** This terminal's chart settings (stall clock, settle, stability, stale-active windows). */
  config: ChartSettings.optional(),
});
export type AttachRequest = z.input<typeof AttachRequest>;

/** What `waitForTurn` resolves with. */
export interface TurnResult {
  turnId: string;
  /** How the turn's completion actor ended (`completed` or `failed`). */
  result: 'completed' | 'failed';
  completion: NonNullable<TerminalState['completion']>;
  lastTurn: TerminalState['lastTurn'];
}

/** How long one sample of a pane, or one journal append until acknowledged, took. */
export type Telemetry =
  { kind: 'sample'; terminalId: string; ms: number } | { kind: 'append'; ms: number };

/** A restart of a terminal's runtime, as recorded. */
export interface RestartRecord {
  terminalId: string;
  attempt: number;
  delaySeconds: number;
  error: string;
  at: string;
}

const WaitOptions = z.strictObject({
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1)
    .optional(),
  signal: z.instanceof(AbortSignal).optional(),
});
const SubmitOptions = z.strictObject({
  force: z.boolean().optional(),
  signal: z.instanceof(AbortSignal).optional(),
});

function invalid(what: string, error: z.ZodError): PanewardError {
  return new PanewardError('invalid_input', `${what}: ${describeZodError(error)}`, {
    details: error.issues,
  });
}

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
  private readonly customProfiles: Readonly<Record<string, ProfileFactory>>;
  private readonly actor: Actor<typeof supervisorMachine>;
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

  constructor(input: SupervisorOptionsInput = {}) {
    const { transport, scheduler, profiles, inspect, ...rest } = input;
    const parsed = SupervisorOptions.safeParse(rest);
    if (!parsed.success) throw invalid('supervisor options', parsed.error);
    this.options = parsed.data;
    this.config = KernelConfig.parse(
      Object.fromEntries(
        Object.entries(parsed.data.config ?? {}).filter(([k]) => k !== 'sessionWallClockSeconds'),
      ),
    );
    const conflict = chartSettingsConflict(this.config);
    if (conflict !== null) {
      throw new PanewardError(
        'invalid_input',
        `supervisor options: field \`config.staleActiveSeconds\`: ${conflict}`,
      );
    }
    this.customProfiles = profiles ?? {};
    this.scheduler = scheduler ?? asyncScheduler;
    this.journal = new Journal({
      dataDir: parsed.data.dataDir === undefined ? defaultDataDir() : parsed.data.dataDir,
      scheduler: this.scheduler,
      onAck: (ms) => this.telemetry.next({ kind: 'append', ms }),
    });
    this.ownsTransport = !transport;
    this.transport =
      transport ??
      createExecaTransport({
        socketName: parsed.data.socketName,
        socketPath: parsed.data.socketPath,
      });
    const control = parsed.data.source === 'control' && !transport && !scheduler;
    this.source = createFrameSource({
      kind: control ? 'control' : 'polling',
      transport: this.transport,
      ...(parsed.data.socketName ? { socketName: parsed.data.socketName } : {}),
      ...(parsed.data.socketPath ? { socketPath: parsed.data.socketPath } : {}),
      intervalMs: this.config.pollIntervalSeconds * 1000,
      scheduler: control ? asyncScheduler : this.scheduler,
    });
    this.observer$ = this.source.health$ ?? EMPTY;
    this.observerSub = this.observer$.subscribe((h) => (this.observerHealth = h));
    const hub = new InspectionHub(inspect);
    const terminal = provideTerminal({
      source: this.source,
      journal: this.journal,
      hub,
      scheduler: this.scheduler,
      config: this.config,
      profileFor: (tool, version) => this.profileFor(tool, version),
      detectTool: (target) => this.detectTool(target),
      onSample: (terminalId, ms) => this.telemetry.next({ kind: 'sample', terminalId, ms }),
      running: this.running,
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
    // Re-adoption: every terminal attached and not detached continues where it was.
    const readopted = this.journal.index.attached();
    for (const [id, facts] of readopted) {
      this.spawn(
        id,
        {
          target: facts.request.target,
          tool: facts.request.tool,
          ...(facts.request.toolVersion ? { toolVersion: facts.request.toolVersion } : {}),
          // An older version took any budget: one out of range is clamped (the re-adoption's
          // terminal.attached record says which), never armed as given.
          watchdogBudgetSeconds: clampBudgetSeconds(facts.request.watchdogBudgetSeconds),
          ...(facts.request.paneId === undefined ? {} : { paneId: facts.request.paneId }),
          ...(facts.request.config ? { config: facts.request.config } : {}),
        },
        true,
      );
    }
    void this.dropVanished(readopted.map(([id]) => id));
  }

  /**
   * Re-adopted terminals whose pane no longer exists (the pane or its whole tmux server is
   * gone; pane ids are handed out again by a new server) are detached, recorded, so a pane
   * that is gone is not watched, nor re-adopted on every start. A pane tmux cannot be asked
   * about now (a timeout) is kept.
   */
  private async dropVanished(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      if (this.stopping || !this.terminalRef(id)) continue;
      const pane = this.paneOf(id) ?? this.requestOf(id).target;
      try {
        await detectPaneTool(this.transport, pane, []);
      } catch (error) {
        if (!isPanewardError(error) || error.code !== 'tmux_missing') continue;
        if (this.stopping || !this.terminalRef(id)) continue;
        void this.record({ kind: 'terminal.detached', terminalId: id });
        this.actor.send({ type: 'evt_detach', terminalId: id });
      }
    }
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
    this.assertRunning();
    const r = this.checkAttach(request);
    let paneId: string;
    try {
      paneId = (await detectPaneTool(this.transport, r.target, [])).pane.id;
    } catch (error) {
      if (isPanewardError(error) && error.code === 'tmux_missing') {
        throw new PanewardError(
          'invalid_input',
          `attach: field \`target\`: no pane ${r.target} on this tmux server`,
          { cause: error },
        );
      }
      throw error;
    }
    this.assertRunning();
    const id = this.attachResolved(r, paneId);
    // Answer once the pane is prepared: its tool is known then.
    const ref = this.terminal(id);
    await firstValueFrom(
      defer(() => from(ref).pipe(startWith(ref.getSnapshot()))).pipe(
        filter((s) => (s as { value: unknown }).value !== 'attaching'),
        rxTimeout({ first: 10_000, scheduler: this.scheduler, with: () => from([null]) }),
      ),
      { defaultValue: null },
    );
    return id;
  }

  /** @deprecated The same as {@link Supervisor.attach}, under its former name. */
  attachPane(request: AttachRequest): Promise<string> {
    return this.attach(request);
  }

  /** Validates an attach request: every field, the tool and the chart settings. */
  private checkAttach(request: AttachRequest): AttachRequest {
    const parsed = AttachRequest.safeParse(request);
    if (!parsed.success) throw invalid('attach', parsed.error);
    const r = parsed.data;
    this.assertKnownTool(r.tool);
    const conflict = chartSettingsConflict({ ...this.config, ...r.config });
    if (conflict !== null) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`config.staleActiveSeconds\`: ${conflict}`,
      );
    }
    return r;
  }

  /**
   * Attaches a checked request whose pane id the caller has resolved (`attach`, discovery),
   * or answers the terminal already on that pane.
   */
  private attachResolved(r: AttachRequest, paneId: string): string {
    const same = this.ids().find(
      (other) => this.paneOf(other) === paneId || this.requestOf(other).target === r.target,
    );
    if (same !== undefined && r.id !== same) {
      const tool = this.requestOf(same).tool;
      if (r.id !== undefined || (r.tool !== undefined && r.tool !== tool)) {
        throw new PanewardError(
          'invalid_input',
          `attach: field \`target\`: pane ${paneId} is already attached as ${same} (${tool})`,
        );
      }
      return same;
    }
    const id = r.id ?? this.nextId();
    if (this.terminalRef(id)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`id\`: terminal ${id} is already attached`,
      );
    }
    this.spawn(
      id,
      {
        target: r.target,
        tool: r.tool ?? 'auto',
        ...(r.tool === undefined ? { detect: true } : {}),
        ...(r.toolVersion ? { toolVersion: r.toolVersion } : {}),
        watchdogBudgetSeconds:
          r.sessionWallClockSeconds ?? this.options.config?.sessionWallClockSeconds ?? 0,
        paneId,
        ...(r.config ? { config: r.config } : {}),
      },
      false,
    );
    return id;
  }

  /**
   * Keeps discovering: every `intervalSeconds`, panes that run a known agent CLI and are not
   * attached yet are attached (agents started later are picked up). Stopped by `stop()`.
   */
  discoverContinuously(intervalSeconds = 5): void {
    this.assertRunning();
    // A timer past 2^31 ms would fire every millisecond.
    if (!(intervalSeconds > 0 && intervalSeconds <= 86_400)) {
      throw new PanewardError(
        'invalid_input',
        'discoverContinuously: field `intervalSeconds`: must be a positive number of seconds, at most 86400',
      );
    }
    this.discovery?.unsubscribe();
    this.discovery = interval(intervalSeconds * 1000, this.scheduler)
      .pipe(
        startWith(-1),
        exhaustMap(() => from(this.discover().catch(() => [] as string[]))),
      )
      .subscribe();
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
    const attached = new Set(
      this.ids().flatMap((id) => [this.requestOf(id).target, this.paneOf(id)]),
    );
    const ids: string[] = [];
    for (const pane of panes) {
      if (attached.has(pane.paneId) || attached.has(pane.target)) continue;
      this.assertRunning();
      const request = this.checkAttach({ target: pane.paneId, tool: pane.tool });
      ids.push(this.attachResolved(request, pane.paneId));
    }
    return ids;
  }

  /** Stops supervising a terminal (recorded: a restarted supervisor will not re-attach it). */
  detach(id: string): void {
    const refused = gate(this.get(id), 'detach');
    if (refused !== null) {
      throw new PanewardError('refused', `terminal ${id} refuses detach: ${refused.reason}`);
    }
    this.readsNoInput.delete(id);
    void this.record({ kind: 'terminal.detached', terminalId: id });
    this.actor.send({ type: 'evt_detach', terminalId: id });
  }

  /** Ids of attached terminals. */
  ids(): string[] {
    return Object.keys(this.actor.getSnapshot().children).filter((id) => this.terminalRef(id));
  }

  /** Ids of attached terminals, as they change. */
  get terminals$(): Observable<string[]> {
    return defer(() => from(this.actor).pipe(startWith(null))).pipe(
      map(() => this.ids()),
      distinctUntilChanged((a, b) => a.join('\0') === b.join('\0')),
    );
  }

  /** The frame source's health now (null before its first report). */
  observer(): SourceHealth | null {
    return this.observerHealth;
  }

  get(id: string): TerminalState {
    return this.contextOf(id).state as TerminalState;
  }

  /** The terminal's public state, now and on every change (survives runtime restarts). */
  state$(id: string): Observable<TerminalState> {
    const ref = this.terminal(id);
    // An actor tells its subscribers about changes only: start with where it is now.
    return defer(() => from(ref).pipe(startWith(ref.getSnapshot()))).pipe(
      map((s) => (s as { context: TerminalContext }).context.state as TerminalState),
      distinctUntilChanged(sameState),
    );
  }

  /** The terminal's latest records (durable), oldest first. */
  history(id: string, limit?: number): JournalRecord[] {
    this.terminal(id);
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
    if (typeof text !== 'string' || text.length === 0) {
      throw new PanewardError(
        'invalid_input',
        'submit: field `text`: a non-empty string is required',
      );
    }
    const t = PromptText.safeParse(text);
    if (!t.success) {
      // The issues name the field and the character, never the text.
      throw new PanewardError(
        'invalid_input',
        `submit: field \`text\`: ${t.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
    const o = SubmitOptions.safeParse(opts);
    if (!o.success) throw invalid('submit', o.error);
    this.terminal(id);
    if (o.data.signal?.aborted) throw new PanewardError('aborted', 'aborted');
    const commands = this.commandsOf(id);
    return answered(commands.submit({ text, force: o.data.force ?? false, ...this.factsOf(id) }));
  }

  /** Waits for that turn's completion actor to end, then for the turn's own outcome. */
  async waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const o = WaitOptions.safeParse(opts);
    if (!o.success) throw invalid('waitForTurn', o.error);
    const states = this.state$(id);
    // The turn's own outcome, remembered as it settles: by the time its completion has ended,
    // the pane may already show the next turn's (an agent that works again after its reply).
    let own: TerminalState['lastTurn'] | null = null;
    const watchOwn = states.subscribe((s) => {
      if (s.lastTurn.turnId === turnId) own = s.lastTurn;
    });
    try {
      return await this.waitForOwnTurn(id, turnId, o.data, states, () => own);
    } finally {
      watchOwn.unsubscribe();
    }
  }

  private async waitForOwnTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal },
    states: Observable<TerminalState>,
    ownOutcome: () => TerminalState['lastTurn'] | null,
  ): Promise<TurnResult> {
    const ended = (s: TerminalState) =>
      s.completion?.turnId === turnId &&
      (s.completion.status === 'completed' || s.completion.status === 'failed');
    const wait = firstValueFrom(
      states.pipe(
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
    const endedState = await abortable(stoppedIfEmpty(wait, id, turnId), opts.signal);
    // The turn's own outcome settles at most one settle window (plus two polls) after completion.
    const graceMs = (this.config.settleSeconds + 2 * this.config.pollIntervalSeconds) * 1000;
    const settled = await abortable(
      firstValueFrom(
        states.pipe(
          filter(
            (s) =>
              ownOutcome() !== null ||
              s.lastTurn.turnId === turnId ||
              s.turn.current?.id !== turnId,
          ),
          rxTimeout({
            first: graceMs,
            scheduler: this.scheduler,
            with: () => from([this.get(id)]),
          }),
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
      lastTurn: ownOutcome() ?? settled.lastTurn,
    };
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
    this.terminal(id);
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

  /** Stops every terminal and the supervisor; everything recorded is durable when it resolves. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.discovery?.unsubscribe();
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

  private spawn(id: string, request: TerminalInput['request'], readopted: boolean): void {
    const { initialSeconds, maxSeconds } = this.options.restartBackoff;
    void this.record({
      kind: 'terminal.attached',
      terminalId: id,
      target: request.target,
      tool: request.tool,
      toolVersion: request.toolVersion ?? null,
      watchdogBudgetSeconds: request.watchdogBudgetSeconds ?? 0,
      ...(request.paneId === undefined ? {} : { paneId: request.paneId }),
      ...(request.config ? { config: request.config } : {}),
      readopted,
    });
    const input: TerminalInput = {
      terminalId: id,
      request,
      config: { ...this.config, ...request.config },
      backoff: { initialSeconds, maxSeconds },
      openTurn: null,
      state: initialState({
        t: this.scheduler.now() / 1000,
        terminalId: id,
        target: request.target,
        tool: request.tool,
        toolVersion: request.toolVersion ?? null,
        budgetSeconds: request.watchdogBudgetSeconds ?? 0,
        restore: readopted ? this.journal.index.facts(id) : null,
      }),
    };
    this.actor.send({ type: 'evt_attach', terminal: input });
    this.watchRestarts(id);
  }

  /** Records each restart of a terminal's runtime, with the delay its backoff chose. */
  private watchRestarts(id: string): void {
    const ref = this.terminalRef(id);
    if (!ref) return;
    let last = '';
    ref.subscribe({
      next: (s: { value: unknown; context: TerminalContext }) => {
        const value = String(s.value);
        if (value === 'restarting' && last !== 'restarting') {
          const c = s.context;
          const delaySeconds = Math.min(
            c.backoff.maxSeconds,
            c.backoff.initialSeconds * 2 ** c.restarts,
          );
          const rec: RestartRecord = {
            terminalId: id,
            attempt: c.restarts + 1,
            delaySeconds,
            error: c.lastError ?? 'unknown',
            at: new Date(this.scheduler.now()).toISOString(),
          };
          this.restarts.push(rec);
          void this.record({
            kind: 'terminal.restarted',
            terminalId: id,
            attempt: rec.attempt,
            delaySeconds,
            error: rec.error,
          });
        }
        last = value;
      },
      error: () => {},
    });
  }

  /** The commands of a terminal whose runtime runs; refused (`not_ready`) while it is attaching or restarting. */
  private commandsOf(id: string): TerminalCommands {
    this.terminal(id);
    const commands = this.running.get(id);
    if (!commands) {
      throw new PanewardError('not_ready', `terminal ${id} is not running (restarting)`);
    }
    return commands;
  }

  private record(draft: Parameters<Journal['append']>[0]): Promise<JournalRecord | null> {
    return this.journal.append(draft).catch(() => null);
  }

  private nextId(): string {
    const used = new Set([...this.ids(), ...this.journal.index.attached().map(([id]) => id)]);
    let n = 1;
    while (used.has(`t${n}`)) n += 1;
    return `t${n}`;
  }

  private profileFor(tool: string, version?: string) {
    const options = { readUnverified: this.options.readUnverifiedVersions };
    return this.customProfiles[tool]?.(version, options) ?? getProfile(tool, version, options);
  }

  private toolIds(): string[] {
    return [...Object.keys(this.customProfiles), ...knownTools().map((t) => t.id), 'unsupported'];
  }

  private isKnownTool(tool: string): boolean {
    return this.toolIds().includes(tool);
  }

  private discoverable(): Array<{ id: string; processNames: readonly string[] }> {
    const custom = Object.entries(this.customProfiles).map(([id, factory]) => ({
      id,
      processNames: factory().processNames,
    }));
    return [...custom, ...knownTools()];
  }

  private terminalRef(id: string): AnyActorRef | undefined {
    const ref = (this.actor.getSnapshot().children as Record<string, AnyActorRef | undefined>)[id];
    const snap = ref?.getSnapshot() as
      { status?: string; context?: { terminalId?: unknown } } | undefined;
    return snap?.status === 'active' && snap.context?.terminalId === id ? ref : undefined;
  }

  private terminal(id: string): AnyActorRef {
    const ref = this.terminalRef(id);
    if (!ref) throw new PanewardError('unknown_terminal', `no terminal with id ${id}`);
    return ref;
  }

  private contextOf(id: string): TerminalContext {
    return (this.terminal(id).getSnapshot() as { context: TerminalContext }).context;
  }

  private requestOf(id: string): TerminalInput['request'] {
    return this.contextOf(id).request;
  }

  private assertKnownTool(tool: string | undefined): void {
    if (tool !== undefined && !this.isKnownTool(tool)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`tool\`: unknown tool ${JSON.stringify(tool)} (known: ${this.toolIds().join(', ')})`,
      );
    }
  }

  /** The id of the terminal's pane, when known: resolved at attach, or the target itself. */
  private paneOf(id: string): string | undefined {
    const { paneId, target } = this.requestOf(id);
    return paneId ?? (target.startsWith('%') ? target : undefined);
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

/** The state stream ended (terminal detached or supervisor stopped) before the turn did. */
async function stoppedIfEmpty<T>(p: Promise<T>, terminalId: string, turnId: string): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof EmptyError) {
      throw new PanewardError(
        'stopped',
        `terminal ${terminalId} stopped before turn ${turnId} finished`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

/** A command's outcome, its failure always a PanewardError. */
async function answered<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (error) {
    throw commandError(error);
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
