import { z } from 'zod';
import { Observation } from './observation.js';

export const StallMode = z.enum(['continuous', 'gap']);
export type StallMode = z.infer<typeof StallMode>;

/** Timer and policy settings of the kernel (defaults: docs/statecharts.md §3). */
// Every setting has an upper bound: a number from outside never arms a timer past reason.
export const KernelConfig = z.object({
  stallTimeoutSeconds: z.number().positive().max(86_400).default(30),
  stabilitySeconds: z.number().nonnegative().max(3600).default(1),
  settleSeconds: z.number().nonnegative().max(3600).default(1),
  /**
   * How long an open turn may sit at an unchanged idle prompt with no activity before it ends
   * with no outcome (phase `ready`). Default: the settle window plus 3 s.
   */
  staleActiveSeconds: z.number().positive().max(86_400).optional(),
  stallMode: StallMode.default('continuous'),
  stalledIsTerminal: z.boolean().default(false),
  pollIntervalSeconds: z.number().positive().max(3600).default(0.5),
});
export type KernelConfig = z.infer<typeof KernelConfig>;

/** Longest stall timeout or stale-active window one may ask for (a day). */
export const MAX_TIMEOUT_SECONDS = 86_400;
/** Longest settle or stability window one may ask for (an hour). */
export const MAX_WINDOW_SECONDS = 3_600;

/**
 * The chart settings a terminal may be attached with (the service's attach call, `serve`,
 * `watch`): each one optional, bounded, on top of the supervisor's.
 */
export const ChartSettings = z.strictObject({
  stallMode: StallMode.optional(),
  stallTimeoutSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional(),
  stalledIsTerminal: z.boolean().optional(),
  settleSeconds: z.number().nonnegative().max(MAX_WINDOW_SECONDS).optional(),
  stabilitySeconds: z.number().nonnegative().max(MAX_WINDOW_SECONDS).optional(),
  staleActiveSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional(),
});
export type ChartSettings = z.infer<typeof ChartSettings>;

/**
 * Why these settings cannot work together (null when they can): the stale-active window must
 * be longer than the settle window, or a success could never settle before the turn is ended.
 */
export function chartSettingsConflict(c: {
  settleSeconds: number;
  staleActiveSeconds?: number | undefined;
}): string | null {
  if (c.staleActiveSeconds === undefined || c.staleActiveSeconds > c.settleSeconds) return null;
  return `must be longer than the settle window (${c.settleSeconds} s)`;
}
export type KernelConfigInput = z.input<typeof KernelConfig>;

const time = z.number().nonnegative();

/** Lines of a kernel scenario (docs/contracts.md §1). */
export const ScenarioConfigLine = KernelConfig.extend({ type: z.literal('config') });
export const ScenarioSubmitLine = z.object({
  type: z.literal('submit'),
  t: time,
  baseline: z.string(),
});
export const ScenarioObservationLine = Observation.extend({
  type: z.literal('observation'),
  t: time,
});
export const ScenarioAdvanceLine = z.object({ type: z.literal('advance'), t: time });

export const ScenarioLine = z.discriminatedUnion('type', [
  ScenarioConfigLine,
  ScenarioSubmitLine,
  ScenarioObservationLine,
  ScenarioAdvanceLine,
]);
export type ScenarioLine = z.infer<typeof ScenarioLine>;

export type KernelMachine = 'readiness' | 'completion';

/** One state change of a kernel machine, as `replay --kernel` prints it. */
export interface TransitionRecord {
  t: number;
  machine: KernelMachine;
  /** Turn number (completion only). */
  turn?: number;
  from: string;
  to: string;
  event: string;
  /** The chart's guard that classified the observation (not part of the scenario output). */
  rule?: string;
  unknownElapsedSeconds?: number;
  elapsedStalledSeconds?: number;
  candidateElapsedSeconds?: number;
}

export interface StalledEnteredAnomaly {
  t: number;
  anomaly: 'stalled_entered';
  phase: KernelMachine;
  elapsedUnknownSeconds: number;
  turn?: number;
  parserFamily?: string;
}

export interface StalledRecoveredAnomaly {
  t: number;
  anomaly: 'stalled_recovered';
  phase: KernelMachine;
  elapsedStalledSeconds: number;
  recoveredTo: string;
  turn?: number;
  parserFamily?: string;
}

export type AnomalyRecord = StalledEnteredAnomaly | StalledRecoveredAnomaly;
export type KernelRecord = TransitionRecord | AnomalyRecord;
