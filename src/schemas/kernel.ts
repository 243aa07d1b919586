import { z } from 'zod';
import { Observation } from './observation.js';

export const StallMode = z.enum(['continuous', 'gap']);
export type StallMode = z.infer<typeof StallMode>;

/** Timer and policy settings of the kernel (defaults: statecharts.md §3). */
// Every setting has an upper bound: a number from outside never arms a timer past reason.
export const KernelConfig = z.object({
  stallTimeoutSeconds: z.number().positive().max(86_400).default(30),
  stabilitySeconds: z.number().nonnegative().max(3600).default(1),
  settleSeconds: z.number().nonnegative().max(3600).default(1),
  stallMode: StallMode.default('continuous'),
  stalledIsTerminal: z.boolean().default(false),
  pollIntervalSeconds: z.number().positive().max(3600).default(0.5),
});
export type KernelConfig = z.infer<typeof KernelConfig>;
export type KernelConfigInput = z.input<typeof KernelConfig>;

const time = z.number().nonnegative();

/** Lines of a kernel scenario (contracts.md §1). */
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
