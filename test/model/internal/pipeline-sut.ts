import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import { getProfile } from '../../../src/profiles/index.js';
import type { ProfileResult } from '../../../src/schemas/signals.js';
import type { ChartTransition, JournalRecord } from '../../../src/schemas/record.js';
import { KernelConfig } from '../../../src/schemas/kernel.js';
import { TerminalPipeline, type ProbeFacts } from '../../../src/terminal/pipeline.js';
import { standaloneSite } from '../../../src/kernel/charts.js';
import type { MachineOverrides } from './harness.js';
import { recordedScreens } from '../../profiles/real-frame.js';
import type { Edge } from './transitions.js';

/** A real screen of a recording and what the profile reads from it. */
export interface RealFrame {
  text: string;
  parsed: ProfileResult;
}

/**
 * The first frame of a real recording that the profile reads as `wanted` says: real screens
 * for the generated tests, chosen by what they show rather than by position.
 */
export function realFrame(
  tool: string,
  scenario: string,
  wanted: (parsed: ProfileResult) => boolean,
  from = 0,
): RealFrame {
  const profile = getProfile(tool);
  const screens = recordedScreens(tool, scenario);
  for (let i = from; i < screens.length; i++) {
    const parsed = profile.parse({ text: screens[i]! });
    if (wanted(parsed)) return { text: screens[i]!, parsed };
  }
  throw new Error(`${tool}/${scenario}: no frame reads as wanted`);
}

/** The whole per-terminal pipeline on virtual time, fed raw screens and probe outcomes. */
export class PipelineHarness {
  readonly clock = new VirtualClock();
  readonly pipeline: TerminalPipeline;
  readonly records: JournalRecord[] = [];
  t = 0;

  constructor(
    tool: string,
    config: ConstructorParameters<typeof TerminalPipeline>[0]['config'],
    machines: MachineOverrides = {},
  ) {
    this.pipeline = new TerminalPipeline({
      terminalId: 'model',
      profile: getProfile(tool),
      config,
      scheduler: this.clock.scheduler,
      site: standaloneSite({ config: KernelConfig.parse(config ?? {}), logic: machines }),
    });
    this.pipeline.journal.records$.subscribe((r) => this.records.push(r));
    this.pipeline.startSession(0);
  }

  /** Moves virtual time forward by `dt` seconds, firing due timers. */
  wait(dt: number): void {
    this.t += dt;
    this.clock.advanceTo(this.t);
    this.pipeline.advance(this.t);
  }

  frame(
    dt: number,
    text: string,
    probe: ProbeFacts = { transport: 'tmux_up', process: 'tui_up' },
  ): void {
    this.wait(dt);
    this.pipeline.frame(this.t, { text }, probe);
  }

  probe(dt: number, probe: ProbeFacts): void {
    this.wait(dt);
    this.pipeline.probe(this.t, probe);
  }

  /** Runs `act`, lets the journal acknowledge what it wrote, returns one chart's transitions. */
  async capture(machine: ChartTransition['machine'], act: () => void): Promise<Edge[]> {
    const before = this.records.length;
    act();
    await this.pipeline.journal.flush();
    return this.records
      .slice(before)
      .flatMap((r) => (r.kind === 'state' ? r.transitions : []))
      .filter((tr) => tr.machine === machine)
      .map((tr) => ({
        from: tr.from,
        event: tr.event.startsWith('evt_') ? tr.event : `[${tr.event}]`,
        to: tr.to,
      }));
  }

  dispose(): void {
    this.pipeline.dispose();
  }
}
