import { createActor, type ActorRefFrom, type AnyStateMachine } from 'xstate';
import { completionMachine, type CompletionInput } from '../../machines/completion.js';
import { diagnosticsMachine } from '../../machines/diagnostics.js';
import { lastTurnMachine } from '../../machines/lastTurn.js';
import { readinessMachine } from '../../machines/readiness.js';
import { turnPhaseMachine, type TurnPhaseInput } from '../../machines/turnPhase.js';
import { watchdogMachine } from '../../machines/watchdog.js';
import { ChartCell } from '../kernel/chart-cell.js';
import { InspectionHub } from '../kernel/chart-runner.js';
import type { ChartHost } from '../kernel/kernel.js';
import type { KernelConfig } from '../schemas/kernel.js';

/** The long-lived statechart actors of one terminal (a turn's completion actor comes and goes). */
export interface TerminalCharts {
  diagnostics: ActorRefFrom<typeof diagnosticsMachine>;
  readiness: ActorRefFrom<typeof readinessMachine>;
  turnPhase: ActorRefFrom<typeof turnPhaseMachine>;
  lastTurn: ActorRefFrom<typeof lastTurnMachine>;
  watchdog: ActorRefFrom<typeof watchdogMachine>;
}

/**
 * Where a whole terminal's charts live: the kernel's {@link ChartHost} (readiness, one
 * completion actor per turn) with the terminal's other charts beside it. Its charts are
 * children of the terminal actor (live) or root actors of their own (replay, tests).
 */
export interface TerminalHost extends ChartHost {
  readonly charts: TerminalCharts;
}

/** The machines of a terminal's charts. */
export interface ChartLogic {
  diagnostics: typeof diagnosticsMachine;
  readiness: typeof readinessMachine;
  completion: typeof completionMachine;
  turnPhase: typeof turnPhaseMachine;
  lastTurn: typeof lastTurnMachine;
  watchdog: typeof watchdogMachine;
}

const CHART_LOGIC: ChartLogic = {
  diagnostics: diagnosticsMachine,
  readiness: readinessMachine,
  completion: completionMachine,
  turnPhase: turnPhaseMachine,
  lastTurn: lastTurnMachine,
  watchdog: watchdogMachine,
};

/** A host whose charts are root actors of their own: it stops them itself. */
export type StandaloneSite = TerminalHost & { dispose(): void };

/**
 * A chart of `machine` that is no actor: a {@link ChartCell} does what the runners and drivers
 * ask of a chart actor, on the machine's own `transition`.
 */
export function chartCell<M extends AnyStateMachine>(
  machine: M,
  id: string,
  input?: unknown,
): ActorRefFrom<M> {
  return new ChartCell(machine, id, input) as unknown as ActorRefFrom<M>;
}

/**
 * Charts on their own (replay of one terminal, tests): pure state machines ({@link ChartCell}),
 * or root actors of their own while someone inspects them.
 */
export function standaloneSite(options: {
  config: KernelConfig;
  watchdogBudgetSeconds?: number;
  openTurn?: TurnPhaseInput['openTurn'];
  hub?: InspectionHub;
  /** Replaces a chart's machine (tests that check they would notice a wrong one). */
  logic?: Partial<ChartLogic>;
}): StandaloneSite {
  const hub = options.hub ?? new InspectionHub();
  const c = options.config;
  const m: ChartLogic = { ...CHART_LOGIC, ...options.logic };
  const turnPhaseInput = {
    settleSeconds: c.settleSeconds,
    staleActiveSeconds: c.staleActiveSeconds,
    openTurn: options.openTurn ?? null,
  };
  const watchdogInput = { budgetSeconds: options.watchdogBudgetSeconds ?? 0 };
  if (!hub.observed) {
    return new CellSite(hub, m, {
      diagnostics: chartCell(m.diagnostics, 'diagnostics'),
      readiness: chartCell(m.readiness, 'readiness', c),
      turnPhase: chartCell(m.turnPhase, 'turnPhase', turnPhaseInput),
      lastTurn: chartCell(m.lastTurn, 'lastTurn'),
      watchdog: chartCell(m.watchdog, 'watchdog', watchdogInput),
    });
  }
  const charts: TerminalCharts = {
    diagnostics: createActor(m.diagnostics, { inspect: hub.inspect }).start(),
    readiness: createActor(m.readiness, { input: c, inspect: hub.inspect }).start(),
    turnPhase: createActor(m.turnPhase, { input: turnPhaseInput, inspect: hub.inspect }).start(),
    lastTurn: createActor(m.lastTurn, { inspect: hub.inspect }).start(),
    watchdog: createActor(m.watchdog, { input: watchdogInput, inspect: hub.inspect }).start(),
  };
  const completions = new Map<string, { stop(): void }>();
  return {
    hub,
    charts,
    readiness: () => charts.readiness,
    completion: (turnId, input) => {
      const actor = createActor(m.completion, { input, inspect: hub.inspect }).start();
      completions.set(turnId, actor);
      return actor;
    },
    stopCompletion: (turnId) => {
      completions.get(turnId)?.stop();
      completions.delete(turnId);
    },
    dispose: () => {
      for (const a of [...Object.values(charts), ...completions.values()]) a.stop();
      completions.clear();
    },
  };
}

/**
 * A terminal's charts as cells. A class, not an object of closures: a terminal keeps one, and
 * the closures with their scope took about a kilobyte.
 */
class CellSite implements StandaloneSite {
  /** The turn's completion cell, by turn id (made with the first turn). */
  private completions: Map<string, { stop(): void }> | null = null;

  constructor(
    readonly hub: InspectionHub,
    private readonly m: ChartLogic,
    readonly charts: TerminalCharts,
  ) {}

  readiness(): TerminalCharts['readiness'] {
    return this.charts.readiness;
  }

  completion(turnId: string, input: CompletionInput): ReturnType<StandaloneSite['completion']> {
    const cell = chartCell(this.m.completion, `completion:${turnId}`, input);
    (this.completions ??= new Map()).set(turnId, cell);
    return cell;
  }

  stopCompletion(turnId: string): void {
    this.completions?.get(turnId)?.stop();
    this.completions?.delete(turnId);
  }

  dispose(): void {
    for (const a of [...Object.values(this.charts), ...(this.completions?.values() ?? [])])
      a.stop();
    this.completions?.clear();
  }
}
