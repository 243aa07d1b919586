import { randomUUID } from 'node:crypto';
import {
  concatMap,
  exhaustMap,
  filter,
  firstValueFrom,
  from,
  interval,
  of,
  take,
  timeout as rxTimeout,
  type SchedulerLike,
} from 'rxjs';
import { fromCallback, fromPromise, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { completionMachine } from '../../machines/completion.js';
import {
  terminalMachine,
  type Preparation,
  type TerminalCommand,
  type TerminalRuntimeInput,
} from '../../machines/terminal.js';
import { PanewardError, isPanewardError } from '../errors.js';
import type { Journal } from '../journal/journal.js';
import type { InspectionHub } from '../kernel/chart-runner.js';
import type { FrameSource } from '../observe/frame-source.js';
import type { PaneProbe } from '../observe/probe.js';
import { detectToolVersion } from '../observe/tool-version.js';
import type { ToolProfile } from '../profiles/types.js';
import type { KernelConfig } from '../schemas/kernel.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { gate, type Operation } from './operations.js';
import { TerminalPipeline, type ChartSite, type TerminalCharts } from '../tracker/pipeline.js';

/** What the terminal runtime needs from the supervisor. */
export interface TerminalRuntimeDeps {
  source: FrameSource;
  journal: Journal;
  hub: InspectionHub;
  scheduler: SchedulerLike;
  config: KernelConfig;
  profileFor(tool: string, toolVersion?: string): ToolProfile;
  /** The tool running in a pane (`unsupported` when none is known). */
  detectTool(target: string): Promise<string>;
  /** Reads a running CLI's version (default: from /proc and its package.json). */
  detectVersion?: typeof detectToolVersion;
  /** Told how long each sample of a pane took, in ms. */
  onSample?(terminalId: string, tookMs: number): void;
}

/** How often a pane with no known agent is looked at again. */
const REDETECT_MS = 5000;

/** The commands a running terminal answers. */
export type CommandName = 'submit' | 'interrupt' | 'resume' | 'screen';

/**
 * The terminal machine with its runtime provided: `prepare` detects the tool when none was
 * given and reads what the journal says to restore; `runtime` builds the terminal's pipeline
 * on its chart children, feeds it the pane's samples and answers commands.
 */
export function provideTerminal(deps: TerminalRuntimeDeps) {
  return terminalMachine.provide({
    actors: {
      prepare: fromPromise<Preparation, TerminalRuntimeInput>(async ({ input }) => {
        const request = { ...input.request };
        if (request.tool === 'auto') request.tool = await deps.detectTool(request.target);
        // A turn left open is restored when the journal shows it under way (activity was
        // recorded); one with nothing recorded may never have been submitted.
        const open = deps.journal.index.facts(input.terminalId)?.openTurn;
        return { request, openTurn: open?.hadEvidence ? open : null };
      }),
      runtime: fromCallback<TerminalCommand, TerminalRuntimeInput>(({ input, receive, sendBack }) =>
        startRuntime(deps, input, receive, sendBack),
      ),
    },
  });
}

function startRuntime(
  deps: TerminalRuntimeDeps,
  input: TerminalRuntimeInput,
  receive: (listener: (cmd: TerminalCommand) => void) => void,
  sendBack: (event: { type: string; [k: string]: unknown }) => void,
): () => void {
  const terminal = input.terminal;
  const id = input.terminalId;
  const profile = deps.profileFor(input.request.tool, input.request.toolVersion);
  const now = () => deps.scheduler.now() / 1000;
  const target = input.request.target;
  const pipeline = new TerminalPipeline({
    terminalId: id,
    profile,
    toolVersion: input.request.toolVersion,
    target,
    config: { ...deps.config, ...input.request.config },
    scheduler: deps.scheduler,
    site: childSite(terminal, deps.hub),
    journal: deps.journal,
    restore: deps.journal.index.facts(id) ?? null,
    // The watchdog's cancel (only ever called after its record is durable, so after `commands`
    // below exists) waits its turn in the command queue like every key paneward presses.
    interrupt: (): Promise<void> => commands.cancelForWatchdog(),
  });
  const fail = (error: unknown) => {
    sendBack({
      type: 'evt_runtime_failed',
      error: error instanceof Error ? error.message : String(error),
    });
  };
  const published = pipeline.state$.subscribe((state) => sendBack({ type: 'evt_state', state }));
  pipeline.startSession(now());
  if (input.request.toolVersion) {
    pipeline.useVersion(now(), input.request.toolVersion, profile, 'attach');
  }
  const versions = new VersionWatch(pipeline, profile, input.request.tool, deps, now);
  const samples = deps.source
    .samples({ target, processNames: profile.processNames })
    // When the agent's processes change, its version is read before their first frame: a
    // release paneward was not verified against is never read, not even for one frame.
    .pipe(
      concatMap((probe) => {
        const reading = versions.check(probe.pids);
        return reading ? from(reading.then(() => probe)) : of(probe);
      }),
    )
    .subscribe({
      next: (probe) => {
        try {
          handleSample(pipeline, now(), probe);
        } catch (error) {
          fail(error);
        }
      },
      error: fail,
    });

  // A pane attached without a tool and with no known agent in it: look again now and then, so
  // an agent CLI started later in that shell is supervised with its profile.
  const redetect =
    input.request.detect && profile.processNames.length === 0
      ? interval(REDETECT_MS, deps.scheduler)
          .pipe(
            exhaustMap(() => from(deps.detectTool(target).catch(() => 'unsupported'))),
            filter((tool) => tool !== 'unsupported'),
            take(1),
          )
          .subscribe(() => sendBack({ type: 'evt_retool' }))
      : null;
  const commands: TerminalCommands = new TerminalCommands(pipeline, profile, target, deps, now);
  receive((cmd) => {
    // Commands run after the event that carried them: the terminal is free to spawn a turn.
    void Promise.resolve()
      .then(() => commands.run(cmd.name as CommandName, cmd.args))
      .then(
        (value) => cmd.reply(null, value),
        (error: unknown) => cmd.reply(error),
      );
  });

  return () => {
    redetect?.unsubscribe();
    versions.stop();
    samples.unsubscribe();
    published.unsubscribe();
    commands.abort();
    pipeline.dispose();
  };
}

/**
 * Reads the running CLI's version from its package whenever the agent's processes change (it
 * was started, or restarted after an upgrade), and tells the pipeline when it differs.
 */
class VersionWatch {
  private pidsKey = '';
  private stopped = false;

  constructor(
    private readonly pipeline: TerminalPipeline,
    private readonly profile: ToolProfile,
    private readonly tool: string,
    private readonly deps: TerminalRuntimeDeps,
    private readonly now: () => number,
  ) {}

  /**
   * Reads the version when `pids` differ from the last ones read (null: nothing to read, the
   * sample goes on at once); the promise never rejects.
   */
  check(pids: readonly number[]): Promise<void> | null {
    const packages = this.profile.packages ?? [];
    if (pids.length === 0 || packages.length === 0) return null;
    const key = pids.join(',');
    if (key === this.pidsKey) return null;
    this.pidsKey = key;
    return this.read(pids, packages);
  }

  private async read(pids: readonly number[], packages: readonly string[]): Promise<void> {
    try {
      const found = await (this.deps.detectVersion ?? detectToolVersion)(pids, packages);
      if (this.stopped || !found) return;
      this.pipeline.useVersion(
        this.now(),
        found.version,
        this.deps.profileFor(this.tool, found.version),
        'process',
      );
    } catch {
      // Unreadable /proc entries: the version stays as it was; the next change tries again.
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/** One sample → one pipeline step. */
function handleSample(pipeline: TerminalPipeline, t: number, probe: PaneProbe): void {
  if (probe.capture) pipeline.frame(t, probe.capture, probe);
  else pipeline.probe(t, probe);
}

/** The charts as children of the terminal actor; a turn's completion actor is spawned by it. */
function childSite(terminal: AnyActorRef, hub: InspectionHub): ChartSite {
  const children = () => terminal.getSnapshot().children as Record<string, AnyActorRef | undefined>;
  const child = <T>(name: string): T => {
    const ref = children()[name];
    if (!ref) throw new PanewardError('internal', `terminal has no ${name} chart`);
    return ref as T;
  };
  const charts: TerminalCharts = {
    diagnostics: child('diagnostics'),
    readiness: child('readiness'),
    turnPhase: child('turnPhase'),
    lastTurn: child('lastTurn'),
    watchdog: child('watchdog'),
  };
  return {
    hub,
    charts,
    readiness: () => charts.readiness,
    completion: (turnId, input) => {
      terminal.send({ type: 'evt_turn_armed', turnId, baseline: input.baseline ?? '' });
      return child<ActorRefFrom<typeof completionMachine>>(`completion:${turnId}`);
    },
    stopCompletion: () => terminal.send({ type: 'evt_turn_closed' }),
  };
}

/** What a command to a terminal carries besides its name. */
export interface CommandArgs {
  text?: string;
  force?: boolean;
  /** The pane reads no input: why (refuses every prompt, forced or not). */
  readsNoInput?: string;
}

/**
 * Prompts, keys and resume for one running terminal. Commands that act are serialised:
 * one at a time, and each one's check against the gate and its typing are one step, so two
 * prompts sent at the same moment to a ready terminal give one turn and one refusal.
 */
class TerminalCommands {
  private readonly abortController = new AbortController();
  /** The tail of the queue of acting commands. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Per submitted turn, the pane as drawn after the paste, before the submit keys. */
  private readonly pasted = new Map<string, string | null>();

  constructor(
    private readonly pipeline: TerminalPipeline,
    private readonly profile: ToolProfile,
    private readonly target: string,
    private readonly deps: TerminalRuntimeDeps,
    private readonly now: () => number,
  ) {}

  abort(): void {
    this.abortController.abort();
  }

  run(name: CommandName, args: unknown): Promise<unknown> {
    const a = (args ?? {}) as CommandArgs;
    // Reading the screen acts on nothing: it never waits behind a prompt being typed.
    if (name === 'screen') return Promise.resolve(this.pipeline.screen);
    const step = this.queue.then(() => this.act(name, a));
    this.queue = step.then(
      () => undefined,
      () => undefined,
    );
    return step.then((r) => (name === 'submit' ? this.confirmed(r as string) : r));
  }

  /**
   * The watchdog's cancel: the interrupt keys, in the queue (never inside a prompt's paste). The
   * watchdog's own chart decided it (a budget the user set), so no verdict is asked.
   */
  cancelForWatchdog(): Promise<void> {
    const press = this.queue.then(() => pressInterrupt(this.profile, (keys) => this.keys(keys)));
    this.queue = press.catch(() => undefined);
    return press;
  }

  private async act(name: Exclude<CommandName, 'screen'>, a: CommandArgs): Promise<unknown> {
    switch (name) {
      case 'submit':
        this.check('sendInput', a);
        return this.submit(a.text ?? '');
      case 'interrupt':
        this.check('interrupt', a);
        return pressInterrupt(this.profile, (keys) => this.keys(keys));
      case 'resume':
        this.check('resume', a);
        this.pipeline.resumeSession(this.now());
        return undefined;
      default:
        // Nothing reaches the pane but through the gate: no other command types.
        throw new PanewardError('invalid_input', `unknown command ${String(name)}`);
    }
  }

  /** Refuses the command unless the gate lets it through now. */
  private check(operation: Operation, a: CommandArgs): void {
    const state = this.pipeline.state;
    const refused = gate(state, operation, a);
    if (refused === null) return;
    const c = state.completion;
    const pending =
      c !== null && c.status !== 'completed' && c.status !== 'failed' ? c.turnId : null;
    const details = {
      operation,
      allowed: refused.allowed,
      reason: refused.reason,
      readiness: state.readiness.status,
      turnPhase: state.turn.phase,
      ...(pending ? { pendingTurnId: pending } : {}),
      ...(state.session.stopReasonCode ? { stopReasonCode: state.session.stopReasonCode } : {}),
    };
    if (operation === 'sendInput') {
      throw new PanewardError(
        'not_ready',
        `terminal ${state.terminalId} is not ready (${refused.reason})`,
        { details },
      );
    }
    throw new PanewardError(
      'refused',
      `terminal ${state.terminalId} refuses ${operation}: ${refused.reason}`,
      { details },
    );
  }

  private keys(keys: readonly string[]): Promise<void> {
    return this.tmux(['send-keys', '-t', this.target, ...keys]).then(() => {});
  }

  private tmux(args: string[], input?: string): Promise<string> {
    return this.deps.source.transport.run(args, {
      signal: this.abortController.signal,
      ...(input === undefined ? {} : { input }),
    });
  }

  /**
   * Types `text` as one bracketed paste and submits it; returns the new turn's id. The text
   * goes through a tmux buffer of its own (loaded from stdin, so any length arrives whole and
   * nothing in it is read as a tmux command or key), pasted with the paste brackets when the
   * agent asked for them, then the profile's submit keys.
   *
   * tmux cannot take back a command it was sent: a call that timed out may still run when tmux
   * answers again. So the turn is recorded before the paste, and a paste or submit that timed
   * out is reported as one that may have been typed, naming that turn (its completion reads
   * the pane as for any turn); one that failed at once typed nothing.
   */
  private async submit(text: string): Promise<string> {
    // What is recorded so far (the last turn's end above all) is durable before anything is
    // typed: after a crash, a prompt left in the box never sits on a turn the journal still
    // shows open.
    await this.pipeline.journal.flush();
    // A buffer of its own: no other client or supervisor pastes it, nor overwrites it.
    const buffer = `paneward-${randomUUID()}`;
    // Loading a buffer types nothing: if it times out, nothing reaches the pane.
    await this.tmux(['load-buffer', '-b', buffer, '-'], text);
    const turnId = this.pipeline.submit(this.now());
    // The turn's start is durable before it is typed: after a crash the journal proves it.
    await this.pipeline.journal.flush();
    try {
      await this.tmux(['paste-buffer', '-p', '-r', '-d', '-b', buffer, '-t', this.target]);
      // An Enter that arrives while the CLI still takes in the paste is dropped by some
      // (grok-cli): submit once the pasted text is drawn, after the profile's pause.
      this.pasted.set(turnId, await this.untilDrawn(text));
      const pause = this.profile.submitDelayMs ?? 0;
      if (pause > 0) await sleep(pause);
      await this.keys(this.profile.submitKeys);
    } catch (error) {
      this.pasted.delete(turnId);
      // Whatever happened, the prompt's text does not stay in tmux (best effort).
      void this.tmux(['delete-buffer', '-b', buffer]).catch(() => undefined);
      throw typingError(error, turnId);
    }
    return turnId;
  }

  /**
   * Waits (at most {@link DRAW_WAIT_MS}) until the pane shows the end of `text`; returns that
   * screen, or null when it never showed (the submit then goes on without it).
   */
  private async untilDrawn(text: string): Promise<string | null> {
    const needle = tail(text);
    if (needle === '') return null;
    const until = Date.now() + DRAW_WAIT_MS;
    for (;;) {
      let screen: string;
      try {
        screen = await this.capture();
      } catch {
        return null;
      }
      if (squeeze(screen).includes(needle)) return screen;
      if (Date.now() >= until) return null;
      await sleep(DRAW_POLL_MS);
    }
  }

  private async capture(): Promise<string> {
    return normalise(await this.tmux(['capture-pane', '-p', '-t', this.target]));
  }

  /** Once a submit's command is done (out of the queue), makes sure the CLI took the prompt. */
  private async confirmed(turnId: string): Promise<string> {
    try {
      await this.confirmSubmitted(turnId);
    } finally {
      this.pasted.delete(turnId);
    }
    return turnId;
  }

  /**
   * Some CLIs draw their input box before they accept input and drop an Enter sent then. If
   * the turn shows no sign of starting and the prompt still sits in the box as a draft, press
   * submit once more.
   */
  private async confirmSubmitted(turnId: string): Promise<void> {
    const cfg = this.pipeline.kernel.config;
    // A screen the profile cannot place (`unknown`) is no sign the turn started.
    const started = (s: TerminalState) =>
      s.completion?.turnId !== turnId ||
      (s.completion.status !== 'waiting' && s.completion.status !== 'unknown') ||
      s.completion.sawWorking ||
      s.completion.sawProjectionChange;
    const waitMs = Math.max(1500, 3 * cfg.pollIntervalSeconds * 1000);
    const seen = await firstValueFrom(
      this.pipeline.state$.pipe(
        filter(started),
        rxTimeout({ first: waitMs, scheduler: this.deps.scheduler, with: () => from([null]) }),
      ),
      { defaultValue: null },
    );
    if (seen !== null) return;
    // In the queue, as every key: never between another command's check and its typing.
    const press = this.queue.then(async () => {
      if (!this.stillDraft(turnId)) return;
      // The profile may not place a box holding a draft (grok-cli reads it `unplaced`): the
      // pane unchanged since the paste, our text still in it, says the Enter was lost.
      if (this.pipeline.state.surface.editingInput !== 'yes') {
        const drawn = this.pasted.get(turnId);
        if (drawn == null || (await this.capture()) !== drawn) return;
        if (!this.stillDraft(turnId)) return;
      }
      await this.keys(this.profile.submitKeys);
    });
    this.queue = press.catch(() => undefined);
    await press;
  }

  /**
   * True while the turn shows nothing at all: still waiting (or on a screen the profile cannot
   * place), no activity, no failure the tool reported (after which nothing is typed), no dialog.
   */
  private stillDraft(turnId: string): boolean {
    const s = this.pipeline.state;
    const c = s.completion;
    return (
      c !== null &&
      c.turnId === turnId &&
      (c.status === 'waiting' || c.status === 'unknown') &&
      !c.sawWorking &&
      !c.sawProjectionChange &&
      s.surface.activeReasons.length === 0 &&
      s.surface.blockedPrompt === null &&
      s.readiness.status !== 'failed' &&
      s.readiness.status !== 'blocked' &&
      !(s.lastTurn.turnId === turnId && s.lastTurn.result !== 'none')
    );
  }
}

/** How long a submit waits for the pasted text to be drawn, and how often it looks. */
const DRAW_WAIT_MS = 1000;
const DRAW_POLL_MS = 40;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Text without any whitespace: how a box wraps or pads a line does not matter. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}

/** The last (at most 12) non-blank characters of a prompt: what is drawn last. */
function tail(text: string): string {
  return squeeze(text).slice(-12);
}

/** A capture without trailing blanks on each line or blank lines at the end. */
function normalise(screen: string): string {
  return screen
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd();
}

/**
 * A paste or submit that failed after its turn was recorded: a timeout may still type when
 * tmux answers again, so it says so and names the turn; the turn's id rides along either way.
 */
function typingError(error: unknown, turnId: string): PanewardError {
  const e = commandError(error);
  if (e.code === 'tmux_timeout') {
    return new PanewardError(
      'tmux_timeout',
      `tmux did not answer in time: the prompt may have been typed; it is recorded as ${turnId}`,
      { cause: error, details: { turnId, mayHaveBeenTyped: true } },
    );
  }
  return new PanewardError(e.code, `${e.message} (recorded as ${turnId}, not typed)`, {
    cause: error,
    details: { turnId, mayHaveBeenTyped: false },
  });
}

/** Turns a command's error (from the machine or the runtime) into a PanewardError. */
export function commandError(error: unknown): PanewardError {
  if (isPanewardError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'not_ready') return new PanewardError('not_ready', (error as Error).message);
  return new PanewardError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

/**
 * Presses a profile's interrupt keys as often as the CLI needs (opencode, Kilo and Copilot CLI
 * interrupt on the second Escape), each press its own send so the keys are not read as one
 * chord, `interruptKeyGapMs` apart.
 */
export async function pressInterrupt(
  profile: Pick<ToolProfile, 'interruptKeys' | 'interruptPresses' | 'interruptKeyGapMs'>,
  send: (keys: readonly string[]) => Promise<unknown>,
): Promise<void> {
  const presses = Math.max(1, profile.interruptPresses ?? 1);
  for (let i = 0; i < presses; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, profile.interruptKeyGapMs ?? 200));
    await send(profile.interruptKeys);
  }
}
