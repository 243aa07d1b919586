import {
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type AnyActorRef,
} from 'xstate';
import type { TerminalState } from '../src/schemas/terminal-state.js';
import { completionMachine } from './completion.js';
import { diagnosticsMachine } from './diagnostics.js';
import { lastTurnMachine } from './lastTurn.js';
import { readinessMachine } from './readiness.js';
import { turnPhaseMachine, type TurnInfo } from './turnPhase.js';
import { watchdogMachine } from './watchdog.js';
import { witnessMachine, type WitnessConfig } from './witness.js';

/** Timer and policy settings of a terminal's charts (docs/statecharts.md §3). */
export interface ChartConfig {
  stallTimeoutSeconds: number;
  stabilitySeconds: number;
  settleSeconds: number;
  /** Default: the settle window plus a margin (turnPhase.ts). */
  staleActiveSeconds?: number;
  stallMode: 'continuous' | 'gap';
  stalledIsTerminal: boolean;
}

/** What was attached: the pane and the tool that runs in it. */
export interface TerminalRequest {
  target: string;
  tool: string;
  toolVersion?: string;
  /** Session wall-clock budget; 0 or absent: no watchdog for this terminal. */
  watchdogBudgetSeconds?: number;
  /** The tool was detected, not given: it is detected again while none is known. */
  detect?: boolean;
  /** The pane's id (`%N`) when it was known at attach. */
  paneId?: string;
  /** This terminal's own chart settings, over the supervisor's. */
  config?: Partial<ChartConfig>;
  /** Who decides its turns' outcomes (docs/witness.md), over the supervisor's. */
  completionAuthority?: 'surface' | 'markers' | 'both';
}

export interface TerminalInput {
  terminalId: string;
  request: TerminalRequest;
  config: ChartConfig;
  /** Restart backoff of the terminal's runtime: first delay and cap, in seconds. */
  backoff: { initialSeconds: number; maxSeconds: number };
  /** A turn left open when the terminal last stopped (restored from the journal). */
  openTurn?: { turn: TurnInfo; hadEvidence: boolean } | null;
  /** The public state to show until the runtime publishes one. */
  state?: TerminalState | null;
  /**
   * Who settles a turn and what the CLI's session record and hooks can tell (docs/witness.md);
   * null or absent: the screen alone. Preparing the pane sets it once the tool is known.
   */
  witness?: WitnessConfig | null;
  /**
   * The pane needs no preparing (a recording replayed, a test): the terminal runs its charts at
   * once, with `request` and `openTurn` as given.
   */
  prepared?: boolean;
}

/** A turn's completion actor, as the terminal spawned it. */
export type CompletionRef = ActorRefFrom<typeof completionMachine>;

/**
 * What the terminal tells its runtime: the completion actor it spawned for the turn the
 * runtime armed (handed over, so nobody looks for it among the terminal's children).
 */
export type TerminalRuntimeEvent = { type: 'turn.completion'; turnId: string; ref: CompletionRef };

export type TerminalEvent =
  | { type: 'evt_runtime_failed'; error: string }
  | { type: 'evt_state'; state: TerminalState }
  | { type: 'evt_turn_armed'; turnId: string; baseline: string }
  | { type: 'evt_turn_closed' }
  /** The runtime saw a different tool start in the pane: prepare again. */
  | { type: 'evt_retool' }
  | { type: 'evt_detach' };

/** What preparing the pane yields: the request (tool detected) and the turn left open, if any. */
export interface Preparation {
  request: TerminalRequest;
  openTurn: TerminalInput['openTurn'];
  /** The completion witness of the tool prepared (absent: the screen alone). */
  witness?: WitnessConfig | null;
}

export interface TerminalContext extends TerminalInput {
  restarts: number;
  lastError: string | null;
  /** The public state the runtime last published (survives restarts). */
  state: TerminalState | null;
  /** Child id of the running turn's completion actor. */
  completionId: string | null;
  /** The running turn's completion actor. */
  completion: CompletionRef | null;
}

/** The terminal's long-lived chart actors (a turn's completion actor is handed over apart). */
export interface TerminalChartRefs {
  diagnostics: ActorRefFrom<typeof diagnosticsMachine>;
  readiness: ActorRefFrom<typeof readinessMachine>;
  turnPhase: ActorRefFrom<typeof turnPhaseMachine>;
  lastTurn: ActorRefFrom<typeof lastTurnMachine>;
  watchdog: ActorRefFrom<typeof watchdogMachine>;
  witness: ActorRefFrom<typeof witnessMachine>;
}

/** What the runtime must provide: how a pane is prepared, and the per-pane runtime itself. */
export interface TerminalRuntimeInput {
  terminal: AnyActorRef;
  terminalId: string;
  request: TerminalRequest;
  restarts: number;
  /** The turn left open that preparing found (the turn-phase chart starts with it). */
  openTurn?: TerminalInput['openTurn'];
  /** The completion witness its `witness` chart was started with (absent: the screen alone). */
  witness?: WitnessConfig | null;
}

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * One supervised terminal. `attaching` prepares the pane (the tool detected when not given,
 * and again when the runtime sees an agent start in a pane that had none; a terminal given a
 * prepared pane, as a replay is, starts `running` at once);
 * `running` invokes the statecharts as its children (diagnostics, readiness, turn phase,
 * last turn, watchdog, the witness that settles turns; it spawns one completion chart per turn) and the runtime that feeds
 * them from the pane's frames; when the runtime or a chart fails, `restarting` waits a capped
 * exponential backoff and prepares again, with fresh charts restored from the journal, while
 * the last public state stays readable. Commands are answered only while `running`.
 */
export const terminalMachine = setup({
  types: {
    context: {} as TerminalContext,
    input: {} as TerminalInput,
    events: {} as TerminalEvent,
  },
  actors: {
    readiness: readinessMachine,
    completion: completionMachine,
    turnPhase: turnPhaseMachine,
    lastTurn: lastTurnMachine,
    diagnostics: diagnosticsMachine,
    watchdog: watchdogMachine,
    witness: witnessMachine,
    /** Provided by the runtime: readies the pane (detects the tool) and reads what to restore. */
    prepare: fromPromise<Preparation, TerminalRuntimeInput>(async ({ input }) => ({
      request: input.request,
      openTurn: null,
    })),
    /** Provided by the runtime: samples the pane and drives the charts; reports failure. */
    runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(() => () => {}),
  },
  actions: {
    /** On `evt_runtime_failed` (its error is text) and on a prepare or chart error event. */
    record_failure: assign({
      lastError: ({ event }) => errorText((event as { error?: unknown }).error),
    }),
    count_restart: assign({ restarts: ({ context }) => context.restarts + 1 }),
    apply_preparation: assign((_, output: Preparation) => ({
      request: output.request,
      openTurn: output.openTurn,
      witness: output.witness ?? null,
    })),
    /** On `evt_state` only. */
    publish_state: assign({ state: ({ event }) => (event as { state: TerminalState }).state }),
    /** Spawns the turn's completion actor. */
    start_turn: assign(({ context, spawn }, turn: { turnId: string; baseline: string }) => {
      const id = `completion:${turn.turnId}`;
      const completion = spawn('completion', {
        id,
        input: { ...context.config, baseline: turn.baseline },
      });
      return { completionId: id, completion };
    }),
    /** Hands the turn's completion actor to the runtime that armed the turn. */
    hand_over_turn: sendTo('runtime', ({ context }, turn: { turnId: string }) => ({
      type: 'turn.completion' as const,
      turnId: turn.turnId,
      ref: context.completion!,
    })),
    /** Stops the running turn's completion actor, if any. */
    stop_turn: enqueueActions(({ context, enqueue }) => {
      // Stryker disable next-line StringLiteral: with no turn, neither '' nor any other text names a child (those are the charts, the runtime and completion:<turn id>), and stopping an id that names no child does nothing
      enqueue.stopChild(context.completionId ?? '');
      enqueue.assign({ completionId: null, completion: null });
    }),
    forget_tool: assign({ request: ({ context }) => ({ ...context.request, tool: 'auto' }) }),
  },
  guards: {
    /** The pane needs no preparing (a replay, a test). */
    pane_prepared: ({ context }) => context.prepared === true,
  },
  delays: {
    /** Capped exponential backoff: the first delay doubles per restart up to the cap. */
    restart_backoff: ({ context }) =>
      Math.min(context.backoff.maxSeconds, context.backoff.initialSeconds * 2 ** context.restarts) *
      1000,
  },
}).createMachine({
  id: 'terminal',
  initial: 'starting',
  context: ({ input }) => ({
    ...input,
    restarts: 0,
    lastError: null,
    state: input.state ?? null,
    completionId: null,
    completion: null,
  }),
  on: {
    evt_detach: { target: '.detached' },
    evt_state: { actions: 'publish_state' },
  },
  states: {
    starting: {
      always: [{ guard: 'pane_prepared', target: 'running' }, { target: 'attaching' }],
    },
    attaching: {
      invoke: {
        src: 'prepare',
        input: ({ context, self }) => ({
          terminal: self,
          terminalId: context.terminalId,
          request: context.request,
          restarts: context.restarts,
        }),
        onDone: {
          target: 'running',
          actions: { type: 'apply_preparation', params: ({ event }) => event.output },
        },
        onError: { target: 'restarting', actions: 'record_failure' },
      },
    },
    running: {
      // The charts first: the runtime starts after them and drives them.
      invoke: [
        {
          id: 'diagnostics',
          src: 'diagnostics',
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'readiness',
          src: 'readiness',
          input: ({ context }) => context.config,
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'turnPhase',
          src: 'turnPhase',
          input: ({ context }) => ({
            settleSeconds: context.config.settleSeconds,
            staleActiveSeconds: context.config.staleActiveSeconds,
            openTurn: context.openTurn ?? null,
          }),
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'lastTurn',
          src: 'lastTurn',
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'watchdog',
          src: 'watchdog',
          input: ({ context }) => ({
            budgetSeconds: context.request.watchdogBudgetSeconds ?? 0,
          }),
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'witness',
          src: 'witness',
          input: ({ context }) => (context.witness ? { config: context.witness } : {}),
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
        {
          id: 'runtime',
          src: 'runtime',
          input: ({ context, self }) => ({
            terminal: self,
            terminalId: context.terminalId,
            request: context.request,
            restarts: context.restarts,
            openTurn: context.openTurn ?? null,
            witness: context.witness ?? null,
          }),
          onError: { target: '#terminal.restarting', actions: 'record_failure' },
        },
      ],
      exit: 'stop_turn',
      on: {
        evt_runtime_failed: { target: 'restarting', actions: 'record_failure' },
        // A new turn ends the previous one's completion actor.
        evt_turn_armed: {
          actions: [
            'stop_turn',
            { type: 'start_turn', params: ({ event }) => event },
            { type: 'hand_over_turn', params: ({ event }) => event },
          ],
        },
        evt_turn_closed: { actions: 'stop_turn' },
        evt_retool: { target: 'attaching', actions: 'forget_tool' },
      },
    },
    restarting: {
      after: {
        restart_backoff: { target: 'attaching', actions: 'count_restart' },
      },
    },
    detached: { type: 'final' },
  },
});

export type TerminalLifecycleState = 'attaching' | 'running' | 'restarting' | 'detached';
export type TerminalActorRef = ActorRefFrom<typeof terminalMachine>;

/**
 * The long-lived charts of a running terminal, by the ids its `running` state invokes them
 * under (its runtime reads them once, when it starts beside them).
 */
export function chartsOf(terminal: AnyActorRef): TerminalChartRefs {
  const children = terminal.getSnapshot().children as Partial<TerminalChartRefs>;
  const { diagnostics, readiness, turnPhase, lastTurn, watchdog, witness } = children;
  if (!diagnostics || !readiness || !turnPhase || !lastTurn || !watchdog || !witness) {
    throw new Error(`terminal ${String(terminal.id)} is not running its charts`);
  }
  return { diagnostics, readiness, turnPhase, lastTurn, watchdog, witness };
}
