import { exhaustMap, filter, from, interval, take, type SchedulerLike } from 'rxjs';
import { fromCallback, fromPromise } from 'xstate';
import {
  terminalMachine,
  type Preparation,
  type TerminalEvent,
  type TerminalRequest,
  type TerminalRuntimeEvent,
  type TerminalRuntimeInput,
} from '../../machines/terminal.js';
import { inOrder } from '../internal/in-order.js';
import type { Journal } from '../journal/journal.js';
import type { InspectionHub } from '../kernel/chart-runner.js';
import type { FrameSource } from '../observe/frame-source.js';
import type { PaneProbe } from '../observe/probe.js';
import { detectToolVersion } from '../observe/tool-version.js';
import type { ToolProfile } from '../profiles/types.js';
import type { KernelConfig } from '../schemas/kernel.js';
import type { TurnPayload } from '../schemas/turn-payload.js';
import { terminalSite } from '../kernel/charts.js';
import { TerminalCommands } from './commands.js';
import { TerminalPipeline } from './pipeline.js';
import { PaneTyping } from './typing.js';
import type { CompletionAuthority, WitnessConfig } from './witness.js';
import type { ClaimRegistry } from '../sessions/observer.js';
import { startTerminalWitness, witnessConfigFor } from './session-witness.js';
import { boundReason } from '../profiles/session-record.js';
import { TurnObservers, type CompletionObserver } from './observers.js';

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
  /** Where the commands of each running terminal are found (see {@link RunningTerminals}). */
  running: RunningTerminals;
  /** Who decides turn outcomes unless a terminal was attached with its own (docs/witness.md). */
  completionAuthority?: CompletionAuthority;
  /** Session-record files followed, shared by every terminal; none: no session records read. */
  sessionClaims?: ClaimRegistry;
  /** The library user's completion observers, run for every turn of every terminal. */
  completionObservers?: readonly CompletionObserver[];
  /** Told each turn's payload as it changes (docs/contracts.md §6); none: none are built. */
  onPayload?: (payload: TurnPayload) => void;
}

/**
 * The commands of every terminal whose runtime runs now, by terminal id: a runtime puts its
 * own in when it starts and takes them out when it stops, so a terminal that is attaching or
 * restarting has none, and a caller is told it is not running.
 */
export class RunningTerminals {
  private readonly commands = new Map<string, TerminalCommands>();

  /** The running terminal's commands, or undefined while it is not running. */
  get(id: string): TerminalCommands | undefined {
    return this.commands.get(id);
  }

  /** Puts a runtime's commands in; returns what takes them out again. */
  add(id: string, commands: TerminalCommands): () => void {
    this.commands.set(id, commands);
    return () => {
      if (this.commands.get(id) === commands) this.commands.delete(id);
    };
  }
}

/** How often a pane with no known agent is looked at again. */
const REDETECT_MS = 5000;

/**
 * The terminal machine with its runtime provided: `prepare` detects the tool when none was
 * given and reads what the journal says to restore; `runtime` builds the terminal's pipeline
 * on its charts, feeds it the pane's samples and puts the terminal's commands in `running`.
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
        return {
          request,
          openTurn: open?.hadEvidence ? open : null,
          witness: witnessOf(deps, request),
        };
      }),
      runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(
        ({ input, receive, sendBack }) => startRuntime(deps, input, receive, sendBack),
      ),
    },
  });
}

/**
 * The completion witness of a prepared pane. A live terminal can always be told a turn's ending
 * by a completion observer (the library's, or one posting to the service), so it has a witness
 * unless the screen alone is asked for.
 */
function witnessOf(deps: TerminalRuntimeDeps, request: TerminalRequest): WitnessConfig | null {
  if (!deps.sessionClaims) return null;
  const tool = deps.profileFor(request.tool, request.toolVersion).id;
  return (
    witnessConfigFor(tool, request.completionAuthority ?? deps.completionAuthority, true) ?? null
  );
}

function startRuntime(
  deps: TerminalRuntimeDeps,
  input: TerminalRuntimeInput,
  receive: (listener: (event: TerminalRuntimeEvent) => void) => void,
  sendBack: (event: TerminalEvent) => void,
): () => void {
  const id = input.terminalId;
  const profile = deps.profileFor(input.request.tool, input.request.toolVersion);
  const now = () => deps.scheduler.now() / 1000;
  const target = input.request.target;
  const host = terminalSite(id, deps.hub, { terminal: input.terminal, receive, sendBack });
  // The witness the terminal's chart was started with: the pipeline's reading of it is the same.
  const witness = input.witness ?? undefined;
  /** The runtime has not been stopped: its states still go to the terminal actor. */
  let live = true;
  const pipeline = new TerminalPipeline({
    terminalId: id,
    profile,
    toolVersion: input.request.toolVersion,
    target,
    config: { ...deps.config, ...input.request.config },
    scheduler: deps.scheduler,
    site: host,
    journal: deps.journal,
    restore: deps.journal.index.facts(id) ?? null,
    // The watchdog's cancel (only ever called after its record is durable, so after `commands`
    // below exists) waits its turn in the command queue like every key paneward presses.
    interrupt: (): Promise<void> => commands.cancelForWatchdog(),
    ...(witness ? { witness } : {}),
    ...(deps.onPayload ? { onPayload: deps.onPayload } : {}),
    onState: (state) => {
      if (live) sendBack({ type: 'evt_state', state });
    },
  });
  let panePid: number | null = null;
  const fail = (error: unknown) => {
    sendBack({
      type: 'evt_runtime_failed',
      error: error instanceof Error ? error.message : String(error),
    });
  };
  // The user's completion observers, watching each turn (docs/witness.md).
  const observers =
    witness && deps.completionObservers && deps.completionObservers.length > 0
      ? new TurnObservers({
          terminalId: id,
          tool: profile.id,
          observers: deps.completionObservers,
          state$: pipeline.state$,
          panePid: () => panePid,
          deliver: (event) => {
            try {
              pipeline.observerEnding(now(), event);
            } catch (error) {
              fail(error);
            }
          },
          onProblem: (observer, turnId, why) =>
            void deps.journal
              .append({
                kind: 'anomaly',
                anomaly: 'completion_observer_problem',
                terminalId: id,
                t: now(),
                observer,
                turnId,
                why: boundReason(why),
              })
              .catch(() => null),
        })
      : null;
  sendBack({ type: 'evt_state', state: pipeline.state });
  pipeline.startSession(now());
  if (input.request.toolVersion) {
    pipeline.useVersion(now(), input.request.toolVersion, profile, 'attach');
  }
  const versions = new VersionWatch(pipeline, profile, input.request.tool, deps, now);
  // When the agent's processes change, its version is read before their first frame: a
  // release paneward was not verified against is never read, not even for one frame.
  const samples = inOrder(
    deps.source.samples({ target, processNames: profile.processNames }),
    (probe) => versions.check(probe.pids),
    (probe) => {
      panePid = probe.pane?.pid ?? panePid;
      try {
        const t = now();
        handleSample(pipeline, t, probe);
        if (probe.capture) observers?.frame(t, probe.capture.text, pipeline.turnHasEvidence);
      } catch (error) {
        fail(error);
      }
    },
    fail,
  );

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
  const typing = new PaneTyping(deps.source.transport, target);
  const commands = new TerminalCommands(pipeline, profile, typing, deps.scheduler, now);
  const release = deps.running.add(id, commands);
  // The CLI's own session record as a second witness (docs/witness.md).
  const stopWitness =
    witness && deps.sessionClaims
      ? startTerminalWitness({
          terminalId: id,
          tool: profile.id,
          processNames: profile.processNames,
          claims: deps.sessionClaims,
          panePid: () => panePid,
          state$: pipeline.state$,
          report: (r) => {
            try {
              pipeline.sessionRecord(now(), r);
            } catch (error) {
              fail(error);
            }
          },
        })
      : null;

  return () => {
    observers?.stop();
    stopWitness?.();
    release();
    redetect?.unsubscribe();
    versions.stop();
    samples.unsubscribe();
    live = false;
    commands.abort();
    pipeline.dispose();
    host.dispose?.();
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
