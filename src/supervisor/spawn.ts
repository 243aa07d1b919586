import { Subject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { isPanewardError, PanewardError } from '../errors.js';
import { terminalNameFor, uniqueName } from '../internal/terminal-name.js';
import type { Journal } from '../journal/journal.js';
import type { TmuxArg } from '../observe/tmux-argv.js';
import type { TmuxTransport } from '../observe/transport.js';
import { launchRecipe, type LaunchRecipe } from '../profiles/launch.js';
import {
  RestartLimits,
  StopInput,
  type SpawnRequest,
  type Spawned,
  type StopAnswer,
} from '../schemas/spawn.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { TerminalCommands } from '../terminal/commands.js';
import { endLeftBehind, parentOf, treeOf, union, type Noted } from './leftovers.js';
import type { AttachRequest } from './options.js';
import { invalid } from './options.js';
import { paneFacts, untilDead, type PaneFacts } from './pane-facts.js';
import { RespawnDriver, type RespawnCharts } from './respawn.js';
import { cliArgv, respawnArgs, type LaunchPlan } from './spawn-argv.js';
import { checkSpawnRequest } from './spawn-request.js';
import { openWindow, untilReady } from './spawn-start.js';
import { watchDeath } from './spawn-watch.js';
import { addWorktree, dropWorktree, removeWorktreeAt, worktreeChanges } from './worktree.js';

/** A spawned terminal's default session wall-clock budget (docs/statecharts.md §7). */
export const SPAWN_BUDGET_SECONDS = 14_400;
const DEFAULT_READY_SECONDS = 60;
const DEFAULT_STOP_SECONDS = 15;

export interface SpawnDeps {
  transport: TmuxTransport;
  journal: Journal;
  scheduler: SchedulerLike;
  /** The service's environment (its `PATH` finds executables). */
  env: NodeJS.ProcessEnv;
  attach(request: AttachRequest): Promise<string>;
  state$(id: string): Observable<TerminalState>;
  get(id: string): TerminalState;
  takenIds(): Set<string>;
  detach(id: string): void;
  commandsOf(id: string): TerminalCommands;
  toolOf(id: string): string;
  paneOf(id: string): string | undefined;
  assertRunning(): void;
  /** Where an owned terminal's respawn chart runs (the supervisor actor's children). */
  respawnCharts: RespawnCharts;
}

/** A terminal paneward started, and its restart bookkeeping. */
interface Owned {
  recipe: LaunchRecipe;
  plan: LaunchPlan;
  userArgs: readonly string[];
  executable: string;
  spawned: Spawned;
  /** The value of the environment marker every process started from its pane carries. */
  mark: string;
  /** The respawn chart: whether a death is restarted, when, and when restarts give up. */
  respawn: RespawnDriver;
  /** When the CLI's process was first seen gone before tmux had marked the pane dead. */
  goneSince: number | null;
  watch: Subscription;
}

/** What a spawn created, removed again if it fails before its terminal is attached. */
interface Made {
  worktree: { path: string; branch: string } | null;
  paneId: string | null;
  mark: string;
}

/**
 * Starting agent CLIs in windows of paneward's own, and supervising them: each started the way
 * its launch recipe says (argv, never a shell string), attached at once, started again in the
 * same pane when it dies under the `on-failure` policy, and ended with its own exit command.
 */
export class Spawner {
  private readonly owned = new Map<string, Owned>();
  /** Ids of spawns under way, taken before anything is created. */
  private readonly reserved = new Set<string>();
  private readonly changed = new Subject<string>();

  constructor(private readonly d: SpawnDeps) {}

  /** What paneward started in a terminal's pane; null for a pane it only attached. */
  spawnedOf(id: string): Spawned | null {
    const o = this.owned.get(id);
    return o ? structuredClone(o.spawned) : null;
  }

  /** See `Supervisor.spawn`. */
  async spawn(request: SpawnRequest): Promise<{ terminalId: string; spawned: Spawned }> {
    this.d.assertRunning();
    const checked = checkSpawnRequest(request, this.d.env);
    const { r, recipe, env, mark, launchEnv, executable, session, window, userArgs } = checked;
    let cwd = checked.cwd;
    // The id is taken here, before the first await: a concurrent spawn of the same id (or of
    // the same name, which would be given the same id) sees it taken and starts nothing.
    const taken = new Set([...this.d.takenIds(), ...this.reserved]);
    const id = r.id ?? uniqueName(terminalNameFor(session, window), taken);
    if (taken.has(id)) {
      throw new PanewardError(
        'invalid_input',
        `spawn: field \`id\`: terminal ${id} already exists`,
      );
    }
    this.reserved.add(id);
    // What this spawn created, removed again if it fails before the terminal is attached.
    const made: Made = { worktree: null, paneId: null, mark };
    let attached = false;
    let terminalId: string;
    let owned: Owned;
    try {
      const worktree = r.worktree ? await addWorktree(cwd, r.worktree) : null;
      made.worktree = worktree;
      if (worktree) cwd = worktree.path;
      const plan: LaunchPlan = {
        session,
        window,
        cwd,
        env: launchEnv,
        argv: cliArgv(recipe, executable, userArgs, false),
      };
      const paneId = await openWindow((args) => this.run(args), plan);
      made.paneId = paneId;
      const policy = r.restart ?? 'never';
      await this.run(['set-option', '-w', '-t', paneId, 'remain-on-exit', 'on']);
      await this.run(respawnArgs(paneId, plan));
      const spawned: Spawned = {
        tool: r.tool,
        paneId,
        session,
        window,
        cwd,
        argv: [...plan.argv],
        envNames: env.map(([k]) => k),
        worktree,
        restart: { policy, restarts: 0, gaveUp: null, lastExit: null },
      };
      terminalId = await this.d.attach({
        target: paneId,
        tool: r.tool,
        id,
        sessionWallClockSeconds: r.sessionWallClockSeconds ?? SPAWN_BUDGET_SECONDS,
        ...(r.config ? { config: r.config } : {}),
      });
      attached = true;
      void this.d.journal
        .append({
          kind: 'terminal.spawned',
          terminalId,
          tool: r.tool,
          paneId,
          session,
          window,
          cwd,
          argv: spawned.argv,
          envNames: spawned.envNames,
          worktree,
          restart: policy,
        })
        .catch(() => null);
      const tid = terminalId;
      const respawn = new RespawnDriver({
        terminalId,
        charts: this.d.respawnCharts,
        policy,
        limits: RestartLimits.parse(r.restartLimits ?? {}),
        scheduler: this.d.scheduler,
        journal: this.d.journal,
        respawn: () => this.respawn(tid, paneId),
        changed: () => {
          const o = this.owned.get(tid);
          if (!o) return;
          o.spawned.restart = o.respawn.view();
          this.changed.next(tid);
        },
      });
      owned = {
        recipe,
        plan,
        userArgs,
        executable,
        spawned,
        mark,
        respawn,
        goneSince: null,
        watch: watchDeath(
          {
            owned: (t) => this.owned.get(t),
            state$: (t) => this.d.state$(t),
            scheduler: this.d.scheduler,
            run: (args) => this.run(args),
            paneFacts: (pane) => this.paneFacts(pane),
          },
          terminalId,
          paneId,
        ),
      };
      this.owned.set(terminalId, owned);
    } catch (error) {
      if (!attached) await this.undo(made);
      throw error;
    } finally {
      this.reserved.delete(id);
    }
    await untilReady(
      {
        changed: this.changed,
        state$: (t) => this.d.state$(t),
        get: (t) => this.d.get(t),
        scheduler: this.d.scheduler,
      },
      terminalId,
      owned.spawned,
      r.readyTimeoutSeconds ?? DEFAULT_READY_SECONDS,
    );
    return { terminalId, spawned: structuredClone(owned.spawned) };
  }

  /**
   * Removes what a failed spawn created: its window (and the CLI in it) and its worktree with
   * its branch. Best effort: each part is tried whatever became of the others.
   */
  private async undo(made: Made): Promise<void> {
    if (made.paneId !== null) {
      const facts = await this.paneFacts(made.paneId).catch(() => null);
      const noted = facts?.pid ? await treeOf(facts.pid) : [];
      const server = facts?.pid ? parentOf(facts.pid) : null;
      await this.run(['kill-window', '-t', made.paneId]).catch(() => undefined);
      await endLeftBehind(noted, made.mark, server).catch(() => undefined);
    }
    if (made.worktree !== null) await dropWorktree(made.worktree).catch(() => undefined);
  }

  /** See `Supervisor.stopTerminal`. */
  async stop(input: StopInput): Promise<StopAnswer> {
    const parsed = StopInput.safeParse(input);
    if (!parsed.success) throw invalid('stop', parsed.error);
    const { id, force = false, removeWorktree = false } = parsed.data;
    const timeoutMs = (parsed.data.timeoutSeconds ?? DEFAULT_STOP_SECONDS) * 1000;
    this.d.get(id);
    const owned = this.owned.get(id);
    if (!owned && !force) {
      throw new PanewardError(
        'refused',
        `terminal ${id} was not started by paneward: stop would type into a pane it only observes (\`force\` overrides)`,
        { details: { operation: 'stop', reason: 'not_spawned' } },
      );
    }
    const worktree = owned?.spawned.worktree ?? null;
    if (removeWorktree) {
      if (!worktree) {
        throw new PanewardError(
          'invalid_input',
          `stop: field \`removeWorktree\`: terminal ${id} was not started in a worktree`,
        );
      }
      const changes = await worktreeChanges(worktree.path);
      if (changes.length > 0 && !force) {
        throw new PanewardError(
          'refused',
          `stop: field \`removeWorktree\`: the worktree ${worktree.path} has changes (${changes.length} paths); \`force\` removes it anyway`,
          { details: { reason: 'worktree_changed', changes: changes.slice(0, 20) } },
        );
      }
    }
    const paneId = owned?.spawned.paneId ?? this.d.paneOf(id) ?? '';
    const recipe = owned?.recipe ?? launchRecipe(this.d.toolOf(id));
    if (!recipe) {
      throw new PanewardError('refused', `terminal ${id}: no exit command is known for its tool`);
    }
    owned?.respawn.send({ type: 'evt_stop_requested' });
    let ended: StopAnswer['ended'];
    // The pane's process and its descendants, noted before the CLI is asked to exit: a helper
    // it started (a daemon) is handed to init when it ends, and is then no descendant.
    let noted: Noted[] = [];
    let server: number | null = null;
    try {
      const before = await this.paneFacts(paneId);
      if (before === null || before.dead) {
        ended = 'already_gone';
      } else {
        const panePid = before.pid;
        noted = panePid === null ? [] : await treeOf(panePid);
        server = panePid === null ? null : parentOf(panePid);
        await this.d.commandsOf(id).exit(recipe.exit, { force });
        ended = (await this.untilDead(paneId, timeoutMs)) ? 'exit_command' : 'killed';
        // Still running: what it started since the first look is noted too.
        if (ended === 'killed' && panePid !== null) noted = union(noted, await treeOf(panePid));
      }
    } catch (error) {
      owned?.respawn.send({ type: 'evt_stop_failed' });
      throw error;
    }
    if (owned) this.release(owned);
    this.owned.delete(id);
    // A window paneward opened goes whole; a pane it only attached goes alone.
    await this.run(owned ? ['kill-window', '-t', paneId] : ['kill-pane', '-t', paneId]).catch(
      (error: unknown) => {
        if (!isPanewardError(error) || error.code !== 'tmux_missing') throw error;
      },
    );
    this.d.detach(id);
    // A pane paneward only attached is the user's: what runs from it is left alone.
    if (owned) await endLeftBehind(noted, owned.mark, server);
    let removed: string | null = null;
    if (removeWorktree && worktree) {
      await removeWorktreeAt(worktree.path, force);
      removed = worktree.path;
    }
    return { ok: true, ended, worktreeRemoved: removed };
  }

  /** Forgets a terminal that was detached (its window stays; it is no longer watched). */
  forget(id: string): void {
    const o = this.owned.get(id);
    if (o) this.release(o);
    this.owned.delete(id);
  }

  /**
   * Stops every watch and every restart waiting for its backoff (the supervisor stops; the CLIs
   * keep running): nothing of this keeps the process alive afterwards.
   */
  close(): void {
    for (const o of this.owned.values()) this.release(o);
    this.owned.clear();
    this.changed.complete();
  }

  private release(o: Owned): void {
    o.watch.unsubscribe();
    o.respawn.release();
  }

  /** Starts the CLI again in its pane, the chart having asked for it. */
  private async respawn(id: string, paneId: string): Promise<{ resumed: boolean }> {
    const o = this.owned.get(id);
    if (!o) throw new Error('released');
    const resumed = o.recipe.resumeArgs !== null;
    const plan = { ...o.plan, argv: cliArgv(o.recipe, o.executable, o.userArgs, resumed) };
    // What the dead CLI left running (a Codex daemon) goes before the next one starts: every
    // restart would otherwise add one. Its pane runs nothing now, so whatever carries the
    // spawn's marker is the old CLI's.
    await endLeftBehind([], o.mark, null);
    await this.run(respawnArgs(paneId, plan));
    return { resumed };
  }

  private paneFacts(paneId: string): Promise<PaneFacts | null> {
    return paneFacts((args) => this.run(args), paneId);
  }

  private untilDead(paneId: string, timeoutMs: number): Promise<boolean> {
    return untilDead((args) => this.run(args), paneId, timeoutMs);
  }

  private run(args: readonly TmuxArg[]): Promise<string> {
    return this.d.transport.run(args);
  }
}
