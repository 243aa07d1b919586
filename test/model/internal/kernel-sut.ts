import { Kernel, standaloneHost } from '../../../src/kernel/kernel.js';
import { InspectionHub } from '../../../src/kernel/chart-runner.js';
import type { MachineOverrides } from './harness.js';
import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { KernelMachine, KernelRecord, TransitionRecord } from '../../../src/schemas/kernel.js';
import type { Observation } from '../../../src/schemas/observation.js';
import type { Edge } from './transitions.js';

export const STALL_SECONDS = 30;
export const STABILITY_SECONDS = 10;
/** Time between two observations: well inside both windows. */
export const OBSERVATION_GAP = 1;
export const SENTINEL = '<<DONE-7f3a>>';

/** A Kernel on virtual time, fed raw observations, recording one machine's transitions. */
export class KernelHarness {
  readonly clock = new VirtualClock();
  readonly kernel: Kernel;
  readonly records: KernelRecord[] = [];
  t = 0;
  private seq = 0;

  constructor(
    private readonly machine: KernelMachine,
    stalledIsTerminal: boolean,
    machines: MachineOverrides = {},
  ) {
    this.kernel = new Kernel({
      host: standaloneHost(new InspectionHub(), machines),
      config: {
        stallTimeoutSeconds: STALL_SECONDS,
        stabilitySeconds: STABILITY_SECONDS,
        stalledIsTerminal,
      },
      scheduler: this.clock.scheduler,
      observer: (obs) =>
        obs.projectionText.includes(SENTINEL) ? { reply: 'sentinel seen' } : null,
    });
    this.kernel.records$.subscribe((r) => this.records.push(r));
  }

  /** Moves virtual time forward by `dt` seconds, firing due timers. */
  wait(dt: number): void {
    this.t += dt;
    this.clock.advanceTo(this.t);
    this.kernel.advance(this.t);
  }

  observe(obs: Partial<Observation>): void {
    this.wait(OBSERVATION_GAP);
    this.kernel.observe(this.t, {
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: 'normal_prompt',
      projectionText: 'baseline',
      baselineInvalidated: false,
      ...obs,
    });
  }

  /** A projection no earlier observation had (a fresh reply on screen). */
  freshReply(): string {
    this.seq += 1;
    return `baseline\n● reply ${this.seq}`;
  }

  /** Runs `act` and returns this machine's transitions it caused, as model edges. */
  capture(act: () => void): Edge[] {
    const before = this.records.length;
    act();
    return this.records
      .slice(before)
      .filter((r): r is TransitionRecord => 'machine' in r && r.machine === this.machine)
      .map((r) => ({
        from: r.from,
        // The eventless policy edge is reported under its guard's name.
        event: r.event.startsWith('evt_') ? r.event : `[${r.event}]`,
        to: r.to,
      }));
  }

  /** The last transition record of this machine (for elapsed-value checks). */
  lastTransition(): TransitionRecord | undefined {
    return this.records
      .filter((r): r is TransitionRecord => 'machine' in r && r.machine === this.machine)
      .at(-1);
  }

  dispose(): void {
    this.kernel.dispose();
  }
}
