import type { ActorRefFrom } from 'xstate';
import type { completionMachine } from '../../machines/completion.js';
import type { Evidence, SurfaceObservation } from '../../machines/surface.js';
import type { KernelRecord } from '../schemas/kernel.js';
import { ChartDriver, type Emitted } from './chart-driver.js';
import type { InspectionHub } from './chart-runner.js';
import { TimerOrder, type Timers } from './timers.js';

/**
 * Optional completion observer (docs/statecharts.md §2): sees each observation once the turn has
 * evidence; a non-null payload while the turn is a candidate completes it at once.
 */
export type CompletionObserver = (obs: SurfaceObservation, evidence: Evidence) => unknown;

/**
 * Feeds one turn's completion chart its observations, its stall timer and its stability
 * window, and asks the pluggable completion observer about each observation once the turn has
 * evidence.
 */
export class CompletionDriver extends ChartDriver<ActorRefFrom<typeof completionMachine>> {
  /** When the current candidate's stability window started. */
  private candidateSince = 0;
  private readonly stabilityKey: string;
  /** The latest observation, asked about again when a witness's evidence arrives between frames. */
  private lastObservation: SurfaceObservation | null = null;

  constructor(
    readonly turnNumber: number,
    actor: ActorRefFrom<typeof completionMachine>,
    hub: InspectionHub,
    timers: Timers,
    emit: (r: KernelRecord) => void,
    private readonly observer?: CompletionObserver,
  ) {
    const key = `completion.${turnNumber}`;
    super(
      'completion',
      actor,
      hub,
      timers,
      `${key}.stall`,
      TimerOrder.completionStall,
      emit,
      turnNumber,
      // Its actions are raise, emit and assign: an observation equal to the last, which left
      // the context with the same values and emitted nothing, would do the same again.
      { skipRepeats: true, contextByValue: true },
    );
    this.stabilityKey = `${key}.stability`;
  }

  protected override onEmitted(ev: Emitted): void {
    if (ev.type === 'stability_window.start') {
      this.candidateSince = this.now;
      this.timers.set(
        this.stabilityKey,
        this.now + ev.seconds!,
        TimerOrder.completionStability,
        (due) =>
          this.dispatch(due, { type: 'evt_stability_window_elapsed' }, this.candidateElapsed(due)),
      );
    } else if (ev.type === 'stability_window.cancel') this.timers.clear(this.stabilityKey);
    else super.onEmitted(ev);
  }

  get evidence(): Evidence {
    return this.runner.context.evidence;
  }

  get payload(): unknown {
    return this.runner.context.payload;
  }

  observe(t: number, observation: SurfaceObservation): void {
    this.lastObservation = observation;
    this.dispatch(t, { type: 'observation', observation });
    this.ask(t, observation);
  }

  /**
   * Asks the completion observer again about the latest observation: evidence that arrived
   * between frames (a completion observer's ending, docs/witness.md) completes a candidate at
   * once, even on a pane at rest that sends no further frame.
   */
  reconsider(t: number): void {
    if (this.lastObservation) this.ask(t, this.lastObservation);
  }

  private ask(t: number, observation: SurfaceObservation): void {
    // Asked on each observation once the turn has evidence, until it has ended
    // (docs/statecharts.md §2). Only a candidate acts on the answer: the chart takes the payload
    // in candidate_complete alone.
    if (!this.observer || this.state === 'completed' || this.state === 'failed') return;
    const evidence = this.evidence;
    if (!evidence.sawWorking && !evidence.sawProjectionChange) return;
    const payload = this.observer(observation, evidence);
    if (payload === null || payload === undefined) return;
    this.dispatch(
      t,
      { type: 'evt_completion_observer_payload', payload },
      this.candidateElapsed(t),
    );
  }

  override stop(): void {
    this.timers.clear(this.stabilityKey);
    super.stop();
  }

  /** Only read by a step out of candidate_complete, whose window has started. */
  private candidateElapsed(t: number): { candidateElapsedSeconds: number } {
    return { candidateElapsedSeconds: t - this.candidateSince };
  }
}
