/**
 * paneward: a supervisor for AI coding-agent terminals in tmux panes.
 *
 * ```ts
 * import { createSupervisor } from 'paneward';
 * const sup = createSupervisor({ socketName: 'work' });
 * const id = await sup.attach({ target: 'agents:0.0', tool: 'claude_code' });
 * sup.state$(id).subscribe((s) => console.log(s.readiness.status, s.turn.phase));
 * const result = await sup.runTurn(id, 'fix the failing test', { timeoutMs: 600_000 });
 * console.log(result.lastTurn.result); // 'success' | 'interrupted' | 'known_failure' | ...
 * await sup.stop();
 * ```
 *
 * @packageDocumentation
 */
export {
  createSupervisor,
  Supervisor,
  SupervisorOptions,
  AttachRequest,
  type SupervisorOptionsInput,
  type RestartRecord,
  type TurnResult,
} from './supervisor/supervisor.js';
export {
  gate,
  operationsFor,
  type Operation,
  type Operations,
  type OperationVerdict,
} from './terminal/operations.js';
export { PromptText, MAX_PROMPT_CHARS } from './schemas/prompt.js';
export { SpawnRequest, StopInput, Spawned, RestartLimits } from './schemas/operations/spawn.js';
export { LAUNCH_RECIPES, launchRecipe, type LaunchRecipe } from './profiles/launch.js';
export { PanewardError, isPanewardError, type PanewardErrorCode } from './errors.js';
export { TerminalState } from './schemas/terminal-state.js';
export { Observation } from './schemas/observation.js';
export {
  TurnSignals,
  ProfileResult,
  FailureKind,
  DialogContext,
  UiContext,
} from './schemas/signals.js';
export { KernelConfig, type KernelRecord, type TransitionRecord } from './schemas/kernel.js';
export { RecordingLine } from './schemas/recording.js';
export { Kernel, type KernelOptions, type KernelSnapshot } from './kernel/kernel.js';
export { VirtualClock } from './kernel/virtual-time.js';
export { TerminalPipeline } from './terminal/pipeline.js';
export { Journal, type JournalOptions } from './journal/journal.js';
export { defaultDataDir } from './journal/data-dir.js';
export { JournalRecord, RecordEvidence, ChartTransition, RECORD_FORMAT } from './schemas/record.js';
export { replayRecording } from './replay/replay.js';
export {
  getProfile,
  isVerifiedVersion,
  PROFILES,
  verifiedVersionsOf,
  type ToolProfile,
  type Screen,
} from './profiles/index.js';
export {
  SESSION_RECORDS,
  sessionRecordReader,
  type RecordedEnding,
  type RecordEvent,
  type RecordPosition,
  type RecordReading,
  type SessionContext,
  type SessionRecordReader,
} from './profiles/session-records.js';
export type { CompletionAuthority, OutcomeWitness } from './terminal/witness.js';
export type {
  CompletionObserver,
  CompletionObserverContext,
  ObservedEnding,
  ObservedFrame,
} from './terminal/observers.js';
export { ObservationBody, ObservationAnswer } from './schemas/operations/observe.js';
export { createExecaTransport } from './observe/execa-transport.js';
export type { TmuxTransport } from './observe/transport.js';
export * as machines from '../machines/index.js';
