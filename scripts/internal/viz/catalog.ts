import type { AnyStateMachine } from 'xstate';
import {
  completionMachine,
  diagnosticsMachine,
  lastTurnMachine,
  readinessMachine,
  respawnMachine,
  supervisorMachine,
  terminalMachine,
  turnPhaseMachine,
  watchdogMachine,
  witnessMachine,
} from '../../../machines/index.js';
import {
  completionSeed,
  diagnosticsSeed,
  lastTurnSeed,
  readinessSeed,
  turnPhaseSeed,
  watchdogSpec,
  type Chart,
} from '../../../test/model/seed-diagrams.js';

/** A machine that is drawn in visualizations/ and checked against statecharts.md. */
export interface CatalogEntry {
  readonly machine: AnyStateMachine;
  /** Its chart in statecharts.md; absent when the document has none for it. */
  readonly chart?: Chart;
  /** One line for the index page. */
  readonly description: string;
  /** Raw inputs the machine classifies itself into its chart's events (not chart events). */
  readonly inputs?: readonly string[];
}

/** Every visualized machine, in index order. Adding a machine is one line here. */
export const catalog: readonly CatalogEntry[] = [
  {
    machine: readinessMachine,
    chart: readinessSeed,
    inputs: ['observation'],
    description: 'Readiness (pre-submit): is it safe to type a prompt? Statecharts §1.',
  },
  {
    machine: completionMachine,
    chart: completionSeed,
    inputs: ['observation'],
    description:
      'Completion (post-submit, one actor per turn): is this turn finished? Statecharts §2.',
  },
  {
    machine: turnPhaseMachine,
    chart: turnPhaseSeed,
    inputs: [
      'frame',
      'turn_armed',
      'settle_window_elapsed',
      'stale_active_elapsed',
      'record_outcome',
    ],
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
    inputs: ['probe'],
    description: 'Diagnostics availability: can the terminal be seen at all? Statecharts §6.',
  },
  {
    machine: watchdogMachine,
    chart: watchdogSpec,
    description: 'Session wall-clock watchdog (no seed diagram; prose only). Statecharts §7.',
  },
  {
    machine: witnessMachine,
    description:
      'Completion witness: who settles a turn (screen, session record, hooks, completion observers) under the completion authority (no seed diagram). Statecharts §9; docs/witness.md.',
  },
  {
    machine: terminalMachine,
    description:
      'One supervised terminal actor: prepares the pane, runs its charts and runtime, restarts them with capped backoff (no chart). Statecharts §8.',
  },
  {
    machine: supervisorMachine,
    description:
      'Supervisor: spawns a terminal actor per attached pane and stops it on detach; stopping flushes the journal (no chart). Statecharts §8.',
  },
  {
    machine: respawnMachine,
    description:
      'Restart policy of a CLI paneward started: backoff, limit, giving up; a death while paneward stops it is no failure (no seed diagram). Statecharts §10; docs/spawn.md.',
  },
];
