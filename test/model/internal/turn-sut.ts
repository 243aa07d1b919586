import type { InspectionEvent } from 'xstate';
import {
  standaloneSite,
  type StandaloneSite,
  type TerminalCharts,
} from '../../../src/kernel/charts.js';
import { KernelConfig } from '../../../src/schemas/kernel.js';
import { InspectionHub } from '../../../src/kernel/chart-runner.js';
import { Timers } from '../../../src/kernel/timers.js';
import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { ChartTransition } from '../../../src/schemas/record.js';
import type { TurnSignals } from '../../../src/schemas/signals.js';
import {
  TurnDriver,
  type TurnLifecycle,
  type WitnessDisagreement,
} from '../../../src/terminal/turn-driver.js';
import type { WitnessConfig } from '../../../machines/witness.js';
import type { MachineOverrides } from './harness.js';
import type { Edge } from './transitions.js';

export const SETTLE_SECONDS = 1;
export const FRAME_GAP = 0.25;
/** The stale-active window the harness runs with (longer than the settle window). */
export const STALE_SECONDS = 2.5;

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

export const FAILURE = { kind: 'server_error', message: 'API Error: 500' } as const;

/** The turn charts and their driver on virtual time, fed raw per-frame signals. */
export class TurnHarness {
  readonly clock = new VirtualClock();
  readonly timers = new Timers(this.clock.scheduler);
  readonly hub: InspectionHub;
  readonly transitions: Array<{ t: number } & ChartTransition> = [];
  readonly turns: TurnLifecycle[] = [];
  readonly disagreements: WitnessDisagreement[] = [];
  readonly turnPhase: TerminalCharts['turnPhase'];
  readonly lastTurn: TerminalCharts['lastTurn'];
  readonly witness: TerminalCharts['witness'];
  private readonly site: StandaloneSite;
  readonly driver: TurnDriver;
  private nextTurn = 1;

  /**
   * `inspect`: an observer of every chart event (the Stately inspector, say); `everyEvent`:
   * repeats are sent too.
   */
  constructor(
    machines: MachineOverrides = {},
    o: {
      inspect?: (ev: InspectionEvent) => void;
      everyEvent?: boolean;
      witness?: WitnessConfig;
    } = {},
  ) {
    this.hub = new InspectionHub(o.inspect, { everyEvent: o.everyEvent ?? false });
    // The turn charts as every path runs them: children of a terminal actor.
    this.site = standaloneSite({
      config: KernelConfig.parse({
        settleSeconds: SETTLE_SECONDS,
        staleActiveSeconds: STALE_SECONDS,
      }),
      hub: this.hub,
      logic: {
        ...(machines.turnPhase ? { turnPhase: machines.turnPhase } : {}),
        ...(machines.lastTurn ? { lastTurn: machines.lastTurn } : {}),
        ...(machines.witness ? { witness: machines.witness } : {}),
      },
      ...(o.witness ? { witness: o.witness } : {}),
    });
    ({
      turnPhase: this.turnPhase,
      lastTurn: this.lastTurn,
      witness: this.witness,
    } = this.site.charts);
    this.driver = new TurnDriver({
      turnPhase: this.turnPhase,
      lastTurn: this.lastTurn,
      witness: this.witness,
      hub: this.hub,
      timers: this.timers,
      nextTurnId: () => `turn-${this.nextTurn}`,
      onDisagreement: (d) => this.disagreements.push(d),
      onTransition: (t, tr) => this.transitions.push({ t, ...tr }),
      onTurn: (ev) => {
        this.turns.push(ev);
        if (ev.kind === 'turn.started') this.nextTurn += 1;
      },
    });
  }
  t = 0;
  /** What the transcript shows; changed only on purpose. */
  text = '> hello';
  private seq = 0;

  wait(dt: number): void {
    this.t += dt;
    this.clock.advanceTo(this.t);
    this.timers.advanceTo(this.t);
  }

  private seen = false;

  frame(signals: Partial<TurnSignals>, available = true): void {
    this.seen = true;
    this.wait(FRAME_GAP);
    this.driver.frame(this.t, {
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

  /** A prompt submitted through paneward: an explicit turn (live, a frame was always seen first). */
  armExplicit(): string {
    if (!this.seen) this.frame({});
    this.wait(FRAME_GAP);
    const id = `turn-${this.nextTurn}`;
    this.driver.armExplicit(this.t, id);
    return id;
  }

  /** A reply that settles: a success candidate, then silence for the settle window. */
  settleSuccess(): void {
    this.newText();
    this.frame({ successCandidate: true });
    this.wait(SETTLE_SECONDS);
  }

  /** When the running settle window started, or null when none runs. */
  settlingSince(): number | null {
    const due = this.timers.due('turn.settle');
    return due === undefined ? null : due - SETTLE_SECONDS;
  }

  activeFrame(): void {
    this.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
  }

  snapshot() {
    return this.driver.snapshot();
  }

  capture(machine: ChartTransition['machine'], act: () => void): Edge[] {
    const before = this.transitions.length;
    act();
    return this.transitions
      .slice(before)
      .filter((r) => r.machine === machine)
      .map((r) => ({ from: r.from, event: r.event, to: r.to }));
  }

  dispose(): void {
    this.driver.stop();
    this.timers.dispose();
    this.site.dispose();
  }
}
