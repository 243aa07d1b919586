import { Timers } from '../../../src/kernel/timers.js';
import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { TurnSignals } from '../../../src/schemas/signals.js';
import { TurnTracker, type TurnRecord } from '../../../src/tracker/turn-tracker.js';
import type { Edge } from './transitions.js';

export const SETTLE_SECONDS = 1;
export const FRAME_GAP = 0.25;

/** An idle prompt with nothing pending: what every frame starts from. */
export const IDLE_SIGNALS: TurnSignals = {
  acceptingInput: 'yes',
  editingInput: 'no',
  readyPosture: 'yes',
  activeReasons: [],
  interrupted: false,
  knownFailure: null,
  successCandidate: false,
  blockedPrompt: null,
  ambiguous: false,
  chatContext: 'current',
};

/** A TurnTracker on virtual time, fed raw per-frame signals. */
export class TrackerHarness {
  readonly clock = new VirtualClock();
  readonly timers = new Timers(this.clock.scheduler);
  readonly records: TurnRecord[] = [];
  readonly tracker = new TurnTracker(this.timers, SETTLE_SECONDS, (r) => this.records.push(r));
  t = 0;
  /** What the transcript shows; changed only on purpose. */
  text = '> hello';
  private seq = 0;
  private turns = 0;

  wait(dt: number): void {
    this.t += dt;
    this.clock.advanceTo(this.t);
    this.timers.advanceTo(this.t);
  }

  frame(signals: Partial<TurnSignals>, available = true): void {
    this.wait(FRAME_GAP);
    this.tracker.frame(this.t, {
      available,
      signals: { ...IDLE_SIGNALS, ...signals },
      projectionText: this.text,
    });
  }

  /** Puts new text on screen (the agent replied): turn evidence. */
  newText(): void {
    this.seq += 1;
    this.text = `${this.text}\n● reply ${this.seq}`;
  }

  armExplicit(): string {
    this.wait(FRAME_GAP);
    this.turns += 1;
    const id = `turn-${this.turns}`;
    this.tracker.armExplicit(this.t, id);
    return id;
  }

  activeFrame(): void {
    this.frame({
      activeReasons: ['spinner'],
      readyPosture: 'no',
      acceptingInput: 'yes',
    });
  }

  /** A reply that settles: a success candidate, then silence for the settle window. */
  settleSuccess(): void {
    this.newText();
    this.frame({ successCandidate: true });
    this.wait(SETTLE_SECONDS);
  }

  capture(machine: TurnRecord['machine'], act: () => void): Edge[] {
    const before = this.records.length;
    act();
    return this.records
      .slice(before)
      .filter((r) => r.machine === machine)
      .map((r) => ({ from: r.from, event: r.event, to: r.to }));
  }

  dispose(): void {
    this.tracker.stop();
    this.timers.dispose();
  }
}
