import {
  defer,
  exhaustMap,
  filter,
  firstValueFrom,
  from,
  interval,
  startWith,
  timeout as rxTimeout,
  type SchedulerLike,
  type Observable,
} from 'rxjs';
import { isPanewardError, PanewardError } from '../errors.js';
import { terminalNameFor, uniqueName } from '../internal/terminal-name.js';
import { detectPaneTool, discoverPanes } from '../observe/discover.js';
import type { TmuxTransport } from '../observe/transport.js';
import { chartSettingsConflict, type KernelConfig } from '../schemas/kernel.js';
import { AttachRequest, invalid } from './options.js';
import type { TerminalActors } from './terminals.js';
import type { ToolCatalog } from './tools.js';

export interface AttachDeps {
  transport: TmuxTransport;
  tools: ToolCatalog;
  terminals: TerminalActors;
  config: KernelConfig;
  scheduler: SchedulerLike;
  /** The budget of a terminal attached without its own (0: no watchdog). */
  defaultBudgetSeconds: number;
  /** Throws `stopped` once the supervisor is stopping. */
  assertRunning(): void;
  /** Detaches a terminal, recorded. */
  detach(id: string): void;
}

/**
 * Attaching panes, written once: a request is checked (every field, the tool, the chart
 * settings), its pane resolved to a pane id, and then attached or answered with the terminal
 * already on that pane, whether it came from `attach` or from discovery.
 */
export class Attach {
  constructor(private readonly d: AttachDeps) {}

  /** See `Supervisor.attach`. */
  async attach(request: AttachRequest): Promise<string> {
    this.d.assertRunning();
    const r = this.check(request);
    let paneId: string;
    try {
      paneId = (await detectPaneTool(this.d.transport, r.target, [])).pane.id;
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
    this.d.assertRunning();
    const id = this.resolved(r, paneId);
    // Answer once the pane is prepared: its tool is known then.
    const ref = this.d.terminals.get(id);
    await firstValueFrom(
      defer(() => from(ref).pipe(startWith(ref.getSnapshot()))).pipe(
        filter((s) => (s as { value: unknown }).value !== 'attaching'),
        rxTimeout({ first: 10_000, scheduler: this.d.scheduler, with: () => from([null]) }),
      ),
      { defaultValue: null },
    );
    return id;
  }

  /** See `Supervisor.detectTool`. */
  async detectTool(target: string): Promise<string> {
    try {
      const found = await detectPaneTool(this.d.transport, target, this.d.tools.discoverable());
      return found.tool ?? 'unsupported';
    } catch (error) {
      if (isPanewardError(error) && error.code.startsWith('tmux_')) return 'unsupported';
      throw error;
    }
  }

  /**
   * Discovers now and every `intervalSeconds` (see `Supervisor.discoverContinuously`). A round
   * that fails finds nothing and is told to `onError`: the first failure, and again each time
   * the message changes (a success in between starts over).
   */
  discoverEvery(
    intervalSeconds: number,
    onError: (error: unknown) => void = () => {},
  ): Observable<string[]> {
    // A timer past 2^31 ms would fire every millisecond.
    if (!(intervalSeconds > 0 && intervalSeconds <= 86_400)) {
      throw new PanewardError(
        'invalid_input',
        'discoverContinuously: field `intervalSeconds`: must be a positive number of seconds, at most 86400',
      );
    }
    let told: string | null = null;
    return interval(intervalSeconds * 1000, this.d.scheduler).pipe(
      startWith(-1),
      exhaustMap(() =>
        from(
          this.discover().then(
            (ids) => {
              told = null;
              return ids;
            },
            (error: unknown) => {
              const message = error instanceof Error ? error.message : String(error);
              if (message !== told) onError(error);
              told = message;
              return [] as string[];
            },
          ),
        ),
      ),
    );
  }

  /** Finds panes that run a known agent CLI and attaches each one not attached yet. */
  async discover(): Promise<string[]> {
    const t = this.d.terminals;
    const panes = await discoverPanes(this.d.transport, this.d.tools.discoverable());
    const attached = new Set(t.ids().flatMap((id) => [t.request(id).target, t.paneOf(id)]));
    const ids: string[] = [];
    for (const pane of panes) {
      if (attached.has(pane.paneId) || attached.has(pane.target)) continue;
      this.d.assertRunning();
      // Named after its session and window (`work-claude`), not a number nobody can place.
      const id = uniqueName(terminalNameFor(pane.session, pane.windowName), t.takenIds());
      const request = this.check({ target: pane.paneId, tool: pane.tool, id });
      ids.push(this.resolved(request, pane.paneId));
    }
    return ids;
  }

  /**
   * Re-adopted terminals whose pane no longer exists (the pane or its whole tmux server is
   * gone; pane ids are handed out again by a new server) are detached, recorded, so a pane
   * that is gone is not watched, nor re-adopted on every start. A pane tmux cannot be asked
   * about now (a timeout) is kept.
   */
  async dropVanished(ids: readonly string[], stopping: () => boolean): Promise<void> {
    const t = this.d.terminals;
    for (const id of ids) {
      if (stopping() || !t.ref(id)) continue;
      const pane = t.paneOf(id) ?? t.request(id).target;
      try {
        await detectPaneTool(this.d.transport, pane, []);
      } catch (error) {
        if (!isPanewardError(error) || error.code !== 'tmux_missing') continue;
        if (stopping() || !t.ref(id)) continue;
        this.d.detach(id);
      }
    }
  }

  /** Validates an attach request: every field, the tool and the chart settings. */
  private check(request: AttachRequest): AttachRequest {
    const parsed = AttachRequest.safeParse(request);
    if (!parsed.success) throw invalid('attach', parsed.error);
    const r = parsed.data;
    this.d.tools.assertKnown(r.tool);
    const conflict = chartSettingsConflict({ ...this.d.config, ...r.config });
    if (conflict !== null) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`config.staleActiveSeconds\`: ${conflict}`,
      );
    }
    return r;
  }

  /**
   * Attaches a checked request whose pane id is resolved, or answers the terminal already on
   * that pane.
   */
  private resolved(r: AttachRequest, paneId: string): string {
    const t = this.d.terminals;
    const same = t
      .ids()
      .find((other) => t.paneOf(other) === paneId || t.request(other).target === r.target);
    if (same !== undefined && r.id !== same) {
      const tool = t.request(same).tool;
      if (r.id !== undefined || (r.tool !== undefined && r.tool !== tool)) {
        throw new PanewardError(
          'invalid_input',
          `attach: field \`target\`: pane ${paneId} is already attached as ${same} (${tool})`,
        );
      }
      return same;
    }
    const id = r.id ?? t.nextId();
    if (t.ref(id)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`id\`: terminal ${id} is already attached`,
      );
    }
    t.spawn(
      id,
      {
        target: r.target,
        tool: r.tool ?? 'auto',
        ...(r.tool === undefined ? { detect: true } : {}),
        ...(r.toolVersion ? { toolVersion: r.toolVersion } : {}),
        watchdogBudgetSeconds: r.sessionWallClockSeconds ?? this.d.defaultBudgetSeconds,
        paneId,
        ...(r.config ? { config: r.config } : {}),
        ...(r.completionAuthority ? { completionAuthority: r.completionAuthority } : {}),
      },
      false,
    );
    return id;
  }
}
