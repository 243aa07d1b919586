import { completionMachine } from '../../machines/completion.js';
import type { Observation } from '../schemas/observation.js';
import type { KernelConfig, KernelRecord } from '../schemas/kernel.js';
import { classifyCompletion, isCandidateEvent } from './classify.js';
import { accumulateEvidence, initialEvidence, type Evidence } from './evidence.js';
import { MachineDriver } from './machine-driver.js';
import { candidateSignature } from './signature.js';
import { TimerOrder, type Timers } from './timers.js';

/**
 * Optional completion observer (statecharts.md §2): sees each observation once the turn has
 * evidence; a non-null payload while the turn is a candidate completes it at once.
 */
export type CompletionObserver = (obs: Observation, evidence: Evidence) => unknown;

/** Drives one turn's completion machine; owns its stall timer and the stability window. */
export class CompletionDriver extends MachineDriver<typeof completionMachine> {
  private evidence: Evidence;
  private signature: string | null = null;
  private candidateSince: number | null = null;
  private readonly stabilityKey: string;
  /** The observer's payload when it completed the turn. */
  payload: unknown = null;

  constructor(
    readonly turnNumber: number,
    baseline: string,
    timers: Timers,
    private readonly config: KernelConfig,
    emit: (r: KernelRecord) => void,
    private readonly observer?: CompletionObserver,
  ) {
    super(
      'completion',
      completionMachine,
      { stalledIsTerminal: config.stalledIsTerminal },
      timers,
      config,
      `completion.${turnNumber}.stall`,
      TimerOrder.completionStall,
      emit,
      turnNumber,
    );
    this.stabilityKey = `completion.${turnNumber}.stability`;
    this.evidence = initialEvidence(baseline);
  }

  get done(): boolean {
    return this.runner.done;
  }

  get currentEvidence(): Evidence {
    return this.evidence;
  }

  observe(t: number, obs: Observation): void {
    if (this.done) return;
    this.evidence = accumulateEvidence(this.evidence, obs);
    const type = classifyCompletion(obs, this.evidence, this.state);
    this.dispatch(t, type);
    this.stall.afterObservation(t, this.state);

    if (this.state === 'candidate_complete' && isCandidateEvent(type)) {
      const sig = candidateSignature(obs, this.evidence);
      if (sig !== this.signature || this.candidateSince === null) {
        this.signature = sig;
        this.candidateSince = t;
        this.timers.set(
          this.stabilityKey,
          t + this.config.stabilitySeconds,
          TimerOrder.completionStability,
          (due) => this.onStable(due),
        );
      }
    } else {
      this.cancelStability();
    }

    const hasEvidence = this.evidence.sawWorking || this.evidence.sawProjectionChange;
    if (this.observer && hasEvidence && this.state === 'candidate_complete') {
      const payload = this.observer(obs, this.evidence);
      if (payload !== null && payload !== undefined) {
        this.payload = payload;
        this.dispatch(t, 'evt_completion_observer_payload', () => this.candidateElapsed(t));
        this.cancelStability();
      }
    }
    if (this.done) this.stall.reset();
  }

  override stop(): void {
    this.cancelStability();
    super.stop();
  }

  private onStable(due: number): void {
    this.dispatch(due, 'evt_stability_window_elapsed', () => this.candidateElapsed(due));
    this.signature = null;
    this.candidateSince = null;
    if (this.done) this.stall.reset();
  }

  private candidateElapsed(t: number): { candidateElapsedSeconds?: number } {
    return this.candidateSince === null ? {} : { candidateElapsedSeconds: t - this.candidateSince };
  }

  private cancelStability(): void {
    this.signature = null;
    this.candidateSince = null;
    this.timers.clear(this.stabilityKey);
  }
}
