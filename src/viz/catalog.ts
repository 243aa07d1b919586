import type { AnyStateMachine } from 'xstate';
import {
  completionMachine,
  diagnosticsMachine,
  lastTurnMachine,
  readinessMachine,
  supervisorMachine,
  terminalMachine,
  turnPhaseMachine,
  watchdogMachine,
} from '../../machines/index.js';
import {
  completionSeed,
  diagnosticsSeed,
  lastTurnSeed,
  readinessSeed,
  turnPhaseSeed,
  watchdogSpec,
  type Chart,
} from '../../machines/seed.js';

/** A machine that is drawn in visualizations/ and checked against statecharts.md. */
export interface CatalogEntry {
  readonly machine: AnyStateMachine;
  /** Its chart in statecharts.md; absent when the document has none for it. */
  readonly chart?: Chart;
  /** One line for the index page. */
  readonly description: string;
}

/** Every visualized machine, in index order. Adding a machine is one line here. */
export const catalog: readonly CatalogEntry[] = [
  {
    machine: readinessMachine,
    chart: readinessSeed,
    description: 'Readiness (pre-submit): is it safe to type a prompt? Statecharts §1.',
  },
  {
    machine: completionMachine,
    chart: completionSeed,
    description:
      'Completion (post-submit, one actor per turn): is this turn finished? Statecharts §2.',
  },
  {
    machine: turnPhaseMachine,
    chart: turnPhaseSeed,
    description: 'Turn phase: between turns, in a turn, or cannot tell. Statecharts §4.',
  },
  {
    machine: lastTurnMachine,
    chart: lastTurnSeed,
    description: 'Last-turn result, sticky across turns. Statecharts §5.',
  },
  {
    machine: diagnosticsMachine,
    chart: diagnosticsSeed,
    description: 'Diagnostics availability: can the terminal be seen at all? Statecharts §6.',
  },
  {
    machine: watchdogMachine,
    chart: watchdogSpec,
    description: 'Session wall-clock watchdog (no seed diagram; prose only). Statecharts §7.',
  },
  {
    machine: terminalMachine,
    description: 'Lifecycle of one supervised terminal actor (no chart). Statecharts §8.',
  },
  {
    machine: supervisorMachine,
    description:
      'Supervisor: attaches, detaches and restarts terminal actors; self-loops keep it running (no chart). Statecharts §8.',
  },
];
