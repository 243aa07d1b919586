// One terminal actor with a prepare step and a runtime the test controls, for the terminal tests.
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { createActor, fromCallback, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import {
  terminalMachine,
  type ChartConfig,
  type Preparation,
  type TerminalRuntimeEvent,
  type TerminalInput,
  type TerminalRuntimeInput,
} from '../../../machines/terminal.js';

/** Deliberately unlike the defaults, so a chart that ignored its input would show it. */
export const CONFIG: ChartConfig = {
  stallTimeoutSeconds: 7,
  stabilitySeconds: 3,
  settleSeconds: 2,
  stallMode: 'gap',
  stalledIsTerminal: true,
};

export const BACKOFF = { initialSeconds: 0.5, maxSeconds: 3 };

/** A terminal attached to a pane (it prepares the pane first). */
export const baseInput = (over: Partial<TerminalInput> = {}): TerminalInput => ({
  terminalId: 't1',
  request: { target: '%1', tool: 'claude_code' },
  config: CONFIG,
  backoff: BACKOFF,
  ...over,
});

/** The top-level state. */
export const top = (value: unknown): string =>
  typeof value === 'string' ? value : Object.keys(value as object)[0]!;

export const flush = () => new Promise((r) => setTimeout(r, 0));

/** A stand-in for a public state: the terminal carries it without reading it. */
export const shown = (n: number) => ({ shown: n }) as unknown as TerminalState;

/**
 * One terminal actor on a simulated clock, with a prepare step and a runtime the test
 * controls: each prepare call is recorded and settled on cue; each runtime start is recorded
 * with the events the terminal hands it and whether it was stopped.
 */
export function terminal(input: TerminalInput = baseInput(), charts: Record<string, unknown> = {}) {
  const clock = new SimulatedClock();
  const prepares: {
    input: TerminalRuntimeInput;
    resolve: (p: Preparation) => void;
    reject: (e: unknown) => void;
  }[] = [];
  const runtimes: {
    input: TerminalRuntimeInput;
    handed: TerminalRuntimeEvent[];
    stopped: boolean;
    sendBack: (event: { type: string; [k: string]: unknown }) => void;
  }[] = [];
  const logic = terminalMachine.provide({
    actors: {
      prepare: fromPromise<Preparation, TerminalRuntimeInput>(
        ({ input }) =>
          new Promise<Preparation>((resolve, reject) => prepares.push({ input, resolve, reject })),
      ),
      runtime: fromCallback<TerminalRuntimeEvent, TerminalRuntimeInput>(
        ({ input, receive, sendBack }) => {
          const record = {
            input,
            handed: [] as TerminalRuntimeEvent[],
            stopped: false,
            sendBack: sendBack as (event: { type: string }) => void,
          };
          runtimes.push(record);
          receive((event) => record.handed.push(event));
          return () => {
            record.stopped = true;
          };
        },
      ),
      ...(charts as object),
    },
  });
  const actor = createActor(logic, { input, clock }).start();
  const snap = () => actor.getSnapshot();
  const children = () => snap().children as Record<string, AnyActorRef | undefined>;
  /** Resolves the pending prepare with the request it was given (tool resolved) and no turn. */
  const prepared = async (over: Partial<Preparation> = {}) => {
    const p = prepares.at(-1)!;
    p.resolve({ request: { ...p.input.request }, openTurn: null, ...over });
    await flush();
  };
  return { actor, clock, prepares, runtimes, snap, children, prepared };
}

/**
 * The children of a running terminal, sorted: its six charts (the witness that settles turns
 * among them) and the runtime that drives them; a turn's completion chart comes and goes.
 */
export const RUNNING_CHILDREN = [
  'diagnostics',
  'lastTurn',
  'readiness',
  'runtime',
  'turnPhase',
  'watchdog',
  'witness',
];
