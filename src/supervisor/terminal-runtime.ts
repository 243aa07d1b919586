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
export type CommandName = 'submit' | 'interrupt' | 'resume' | 'keys' | 'screen';

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
  const transport = deps.source.transport;
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
    interrupt: () =>
      pressInterrupt(profile, (keys) => transport.run(['send-keys', '-t', target, ...keys])),
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
  const commands = new TerminalCommands(pipeline, profile, target, deps, now);
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
    completion: (turnId, input) => {
      terminal.send({ type: 'evt_turn_armed', turnId, baseline: input.baseline ?? '' });
      return child<ActorRefFrom<typeof completionMachine>>(`completion:${turnId}`);
    },
    stopCompletion: () => terminal.send({ type: 'evt_turn_closed' }),
  };
}

/** Prompts, keys and resume for one running terminal. */
class TerminalCommands {
  private readonly abortController = new AbortController();

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

  async run(name: CommandName, args: unknown): Promise<unknown> {
    switch (name) {
      case 'submit':
        return this.submit(args as { text: string; force?: boolean });
      case 'interrupt':
        return pressInterrupt(this.profile, (keys) => this.keys(keys));
      case 'keys':
        return this.keys((args as { keys: string[] }).keys);
      case 'resume':
        this.pipeline.resumeSession(this.now());
        return undefined;
      case 'screen':
        return this.pipeline.screen;
    }
  }

  private keys(keys: readonly string[]): Promise<void> {
    return this.tmux(['send-keys', '-t', this.target, ...keys]).then(() => {});
  }

  private tmux(args: string[]): Promise<string> {
    return this.deps.source.transport.run(args, { signal: this.abortController.signal });
  }

  /**
   * Types `text` literally and submits it. Refused unless readiness is `ready`, no turn of ours
   * is pending and the watchdog has not blocked the session (unless `force`). Returns the new
   * turn's id.
   */
  private async submit({ text, force }: { text: string; force?: boolean }): Promise<string> {
    const state = this.pipeline.state;
    const refusal = submitRefusal(state);
    if (refusal && !force) {
      throw new PanewardError(
        'not_ready',
        `terminal ${state.terminalId} is not ready (${refusal.why})`,
        {
          details: refusal.details,
        },
      );
    }
    // What is recorded so far (the last turn's end above all) is durable before anything is
    // typed: after a crash, a prompt left in the box never sits on a turn the journal still
    // shows open.
    await this.pipeline.journal.flush();
    await this.tmux(['send-keys', '-t', this.target, '-l', '--', text]);
    const turnId = this.pipeline.submit(this.now());
    // The turn's start is durable before it is submitted: after a crash the journal proves it.
    await this.pipeline.journal.flush();
    await this.keys(this.profile.submitKeys);
    await this.confirmSubmitted(turnId);
    return turnId;
  }

  /**
   * Some CLIs draw their input box before they accept input and drop an Enter sent then. If
   * the turn shows no sign of starting and the prompt still sits in the box as a draft, press
   * submit once more.
   */
  private async confirmSubmitted(turnId: string): Promise<void> {
    const cfg = this.pipeline.kernel.config;
    const started = (s: TerminalState) =>
      s.completion?.turnId !== turnId ||
      s.completion.status !== 'waiting' ||
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
    if (seen === null && this.pipeline.state.surface.editingInput === 'yes') {
      await this.keys(this.profile.submitKeys);
    }
  }
}

/** Why a prompt may not be typed now, or null when it may. */
export function submitRefusal(
  state: TerminalState,
): { why: string; details: Record<string, unknown> } | null {
  const readiness = state.readiness.status;
  if (state.session.status === 'blocked') {
    return {
      why: `session blocked: ${state.session.stopReasonCode ?? 'unknown'}; resume it first`,
      details: { readiness, stopReasonCode: state.session.stopReasonCode },
    };
  }
  // Our own turn that has not ended yet: the screen may still look ready for a moment after
  // Enter, but a second prompt now would be typed into a running turn.
  const c = state.completion;
  const pending = c !== null && c.status !== 'completed' && c.status !== 'failed' ? c.turnId : null;
  if (pending) {
    return {
      why: `turn ${pending} has not finished`,
      details: { readiness, pendingTurnId: pending },
    };
  }
  if (readiness !== 'ready') return { why: `readiness: ${readiness}`, details: { readiness } };
  return null;
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
