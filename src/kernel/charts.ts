import { createActor, fromCallback, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { completionMachine, CompletionInput } from '../../machines/completion.js';
import type { diagnosticsMachine } from '../../machines/diagnostics.js';
import type { lastTurnMachine } from '../../machines/lastTurn.js';
import type { readinessMachine, ReadinessInput } from '../../machines/readiness.js';
import {
  chartsOf,
  terminalMachine,
  type CompletionRef,
  type TerminalChartRefs,
  type TerminalEvent,
  type TerminalInput,
  type TerminalRuntimeEvent,
  type TerminalRuntimeInput,
} from '../../machines/terminal.js';
import type { turnPhaseMachine } from '../../machines/turnPhase.js';
import type { watchdogMachine } from '../../machines/watchdog.js';
import type { WitnessConfig, witnessMachine } from '../../machines/witness.js';
import { PanewardError } from '../errors.js';
import { InspectionHub } from './chart-runner.js';
import type { KernelConfig } from '../schemas/kernel.js';

/** Where the kernel's chart actors live: children of a terminal actor. */
export interface ChartHost {
  readonly hub: InspectionHub;
  readiness(input: ReadinessInput): ActorRefFrom<typeof readinessMachine>;
  /** A new completion actor for a turn (the previous one is already stopped). */
  completion(turnId: string, input: CompletionInput): ActorRefFrom<typeof completionMachine>;
  /** Stops a turn's completion actor. */
  stopCompletion(turnId: string): void;
  /** Stops every chart this host created itself. */
  dispose?(): void;
}

/** The long-lived statechart actors of one terminal (a turn's completion actor comes and goes). */
export type TerminalCharts = TerminalChartRefs;

/**
 * Where a whole terminal's charts live: the kernel's {@link ChartHost} (readiness, one
 * completion actor per turn) with the terminal's other charts beside it. The charts are always
 * children of a terminal actor: under the supervisor's actor (live), or of a terminal actor
 * of its own (replay, tests).
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
  witness: typeof witnessMachine;
}

/** A host whose terminal actor is its own: it stops it itself. */
export type StandaloneSite = TerminalHost & { dispose(): void };

/** How a runtime talks with the terminal actor it runs under. */
export interface TerminalLink {
  /** The terminal actor, whose `running` state invokes the charts. */
  terminal: AnyActorRef;
  /** Takes what the terminal sends the runtime (a turn's completion actor, handed over). */
  receive(listener: (event: TerminalRuntimeEvent) => void): void;
  /** Sends the terminal an event, as its runtime child. */
  sendBack(event: TerminalEvent): void;
}

/**
 * The charts of a running terminal actor, as the kernel and the pipeline drive them: the
 * long-lived ones are its children; a turn's completion actor is spawned by it when the
 * runtime arms the turn, and handed back (`turn.completion`) before the arming returns.
 */
export function terminalSite(
  terminalId: string,
  hub: InspectionHub,
  link: TerminalLink,
): TerminalHost {
  const charts = chartsOf(link.terminal);
  let handed: { turnId: string; ref: CompletionRef } | null = null;
  /** The turn whose completion actor runs (the terminal runs one at a time). */
  let running: string | null = null;
  link.receive((event) => {
    handed = { turnId: event.turnId, ref: event.ref };
  });
  return {
    hub,
    charts,
    readiness: () => charts.readiness,
    completion: (turnId, turn) => {
      handed = null;
      link.sendBack({ type: 'evt_turn_armed', turnId, baseline: turn.baseline ?? '' });
      const got = handed as { turnId: string; ref: CompletionRef } | null;
      if (got?.turnId !== turnId) {
        throw new PanewardError(
          'internal',
          `terminal ${terminalId} spawned no completion for ${turnId}`,
        );
      }
      running = turnId;
      return got.ref;
    },
    // Only the turn that runs: another id names no completion actor of this terminal.
    stopCompletion: (turnId) => {
      if (turnId !== running) return;
      running = null;
      link.sendBack({ type: 'evt_turn_closed' });
    },
  };
}

/**
 * A terminal's charts with no pane and no supervisor (replay of one terminal, tests): a
 * terminal actor of their own, started with its pane prepared, so its `running` state invokes
 * the charts at once, exactly as a supervised terminal's does; its runtime is this site.
 */
export function standaloneSite(options: {
  config: KernelConfig;
  watchdogBudgetSeconds?: number;
  openTurn?: TerminalInput['openTurn'];
  /** Who settles its turns (absent: the screen alone). */
  witness?: WitnessConfig;
  hub?: InspectionHub;
  /** Replaces a chart's machine (tests that check they would notice a wrong one). */
  logic?: Partial<ChartLogic>;
  terminalId?: string;
}): StandaloneSite {
  const hub = options.hub ?? new InspectionHub();
  const terminalId = options.terminalId ?? 'standalone';
  let listener: ((event: TerminalRuntimeEvent) => void) | null = null;
  const machine = terminalMachine.provide({
    actors: {
      ...options.logic,
      runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(({ receive }) => {
        receive((event) => listener?.(event));
        return () => {};
      }),
    },
  });
  // Named as a supervised terminal is (its id, and its system id).
  const terminal = createActor(machine, {
    id: terminalId,
    systemId: terminalId,
    input: {
      terminalId,
      request: {
        target: terminalId,
        tool: 'none',
        watchdogBudgetSeconds: options.watchdogBudgetSeconds ?? 0,
      },
      config: options.config,
      backoff: { initialSeconds: 1, maxSeconds: 1 },
      openTurn: options.openTurn ?? null,
      witness: options.witness ?? null,
      prepared: true,
    },
    inspect: hub.inspect,
  }).start();
  const site = terminalSite(terminalId, hub, {
    terminal,
    receive: (l) => {
      listener = l;
    },
    sendBack: (event) => terminal.send(event),
  });
  return { ...site, dispose: () => terminal.stop() };
}
