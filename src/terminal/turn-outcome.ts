import type { ActorRefFrom } from 'xstate';
import type { lastTurnMachine, LastTurnState } from '../../machines/lastTurn.js';
import type {
  TurnInfo,
  TurnPhaseEmitted,
  TurnPhaseState,
  TurnSource,
} from '../../machines/turnPhase.js';
import {
  evidenceOf,
  type OutcomeWitness,
  type WitnessEvent,
  type witnessMachine,
} from '../../machines/witness.js';
import type { ChartRunner } from '../kernel/chart-runner.js';
import type { ChartTransition } from '../schemas/record.js';

/** A turn began, ended with an outcome (or none: another took its place), or was reopened. */
export type TurnLifecycle =
  | { kind: 'turn.started'; t: number; turn: TurnInfo }
  | {
      kind: 'turn.ended';
      t: number;
      turnId: string;
      source: TurnSource;
      outcome: 'success' | 'interrupted' | 'known_failure' | 'none';
      /** Which witness decided the outcome (absent for `none`). */
      witness?: OutcomeWitness;
      /** The session record's evidence for it, when the record took part. */
      record?: { file: string; offset: number; event: string };
      /** The hook's event that told it, when a hook took part (docs/hooks.md). */
      hook?: { event: string };
      /** The completion observer that told it, when one took part (docs/witness.md). */
      observer?: { name: string };
    }
  | { kind: 'turn.reopened'; t: number; turn: TurnInfo };

/** What reporting an outcome needs of the turn driver. */
export interface OutcomeWiring {
  last: ChartRunner<ActorRefFrom<typeof lastTurnMachine>>;
  witness: ActorRefFrom<typeof witnessMachine>;
  /** A completion witness is set up (outcomes may name theirs). */
  configured: boolean;
  /** Who decided the outcome, when a verdict of the witness chart is being sent. */
  deciding: OutcomeWitness | null;
  tell: (event: WitnessEvent) => void;
  onTransition: (t: number, transition: ChartTransition) => void;
  onTurn: (event: TurnLifecycle) => void;
}

const OUTCOME_OF = {
  evt_success_settled: 'success',
  evt_interrupted: 'interrupted',
  evt_known_failure: 'known_failure',
} as const;

/**
 * An outcome the turn-phase chart reported: the witness chart learns it (and names who decided
 * it), the last-turn chart takes it, and the turn is reported ended (or reopened, for a
 * retracted success) with its witness and the markers' evidence.
 */
export function onOutcome(
  w: OutcomeWiring,
  ev: Extract<TurnPhaseEmitted, { type: 'outcome' }>,
): void {
  let witness: OutcomeWitness | null = null;
  let evidence: ReturnType<typeof evidenceOf> = {};
  if (ev.outcome !== 'evt_success_retracted') {
    const reason = OUTCOME_OF[ev.outcome];
    w.tell({ type: 'outcome', reason, startedAt: ev.startedAt, at: ev.at, decidedBy: w.deciding });
    const context = w.witness.getSnapshot().context;
    witness = context.lastWitness;
    if (witness && witness !== 'surface') evidence = evidenceOf(context, reason, ev.startedAt);
  }
  const steps = w.last.send({ type: ev.outcome, turnId: ev.turnId, source: ev.source, at: ev.at });
  // A new turn with the same outcome is a self transition: still an outcome worth recording.
  const state = w.last.state;
  for (const step of steps.length > 0 ? steps : [{ from: state, to: state, event: ev.outcome }]) {
    w.onTransition(ev.at, { machine: 'lastTurn', ...step, rule: ev.rule, turnId: ev.turnId });
  }
  if (ev.outcome === 'evt_success_retracted') {
    const turn = { id: ev.turnId, source: ev.source, startedAt: ev.startedAt };
    w.onTurn({ kind: 'turn.reopened', t: ev.at, turn });
    return;
  }
  const seen = w.witness.getSnapshot().context.recordSeen;
  w.onTurn({
    kind: 'turn.ended',
    t: ev.at,
    turnId: ev.turnId,
    source: ev.source,
    outcome: OUTCOME_OF[ev.outcome],
    ...(witness && w.configured && seen ? { witness } : {}),
    ...evidence,
  });
}

export interface TurnSnapshot {
  phase: TurnPhaseState;
  current: TurnInfo | null;
  lastTurn: {
    result: LastTurnState;
    source: TurnSource | 'none';
    turnId: string | null;
    at: number | null;
    /**
     * Which witness decided it; only with a completion witness set up, and not for an outcome
     * restored from the journal.
     */
    witness?: OutcomeWitness;
  };
}

/** An outcome the journal recorded for a terminal's last turn. */
export interface RestoredOutcome {
  result: 'success' | 'interrupted' | 'known_failure';
  source: TurnSource;
  turnId: string;
  at: number;
}

const EVENT_OF = {
  success: 'evt_success_settled',
  interrupted: 'evt_interrupted',
  known_failure: 'evt_known_failure',
} as const;

/**
 * Puts the last-turn chart where the journal left it. Nothing is reported: outcomes are
 * reported from the turn-phase chart's `outcome` events, and this sends none.
 */
export function restoreLastTurn(
  last: ChartRunner<ActorRefFrom<typeof lastTurnMachine>>,
  facts: RestoredOutcome,
): void {
  last.send({
    type: EVENT_OF[facts.result],
    turnId: facts.turnId,
    source: facts.source,
    at: facts.at,
  });
}

/** The last turn as the snapshot tells it; `witness`: who decided it, when outcomes name theirs. */
export function lastTurnOf(
  last: ChartRunner<ActorRefFrom<typeof lastTurnMachine>>,
  witness: OutcomeWitness | null | undefined,
): TurnSnapshot['lastTurn'] {
  const ctx = last.context;
  return {
    result: last.state as LastTurnState,
    source: ctx.source,
    turnId: ctx.turnId,
    at: ctx.at,
    ...(witness && ctx.turnId !== null ? { witness } : {}),
  };
}
