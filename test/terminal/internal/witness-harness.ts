// The turn charts on virtual time with a completion witness, for the witness tests.
import { afterEach } from 'vitest';
import { InspectionHub } from '../../../src/kernel/chart-runner.js';
import { standaloneSite } from '../../../src/kernel/charts.js';
import { KernelConfig } from '../../../src/schemas/kernel.js';
import { Timers } from '../../../src/kernel/timers.js';
import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { RecordedEnding, RecordEvent } from '../../../src/profiles/session-record.js';
import type { TurnSignals } from '../../../src/schemas/signals.js';
import {
  TurnDriver,
  type TurnLifecycle,
  type WitnessDisagreement,
} from '../../../src/terminal/turn-driver.js';
import type { CompletionAuthority } from '../../../src/terminal/witness.js';

const IDLE: TurnSignals = {
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
export const SETTLE = 1;
export const WINDOW = 3;
export const T0 = 1_800_000_000; // observation seconds (epoch seconds live)

/** The turn charts on virtual time with a completion witness, fed frames and record events. */
export function harness(
  authority: CompletionAuthority | null,
  endings?: readonly RecordedEnding['reason'][],
  hookEndings?: readonly RecordedEnding['reason'][],
) {
  const clock = new VirtualClock();
  const timers = new Timers(clock.scheduler);
  const hub = new InspectionHub();
  // The turn charts and the witness chart as every path runs them: a terminal actor's children.
  const site = standaloneSite({
    config: KernelConfig.parse({ settleSeconds: SETTLE, staleActiveSeconds: 30 }),
    hub,
    ...(authority
      ? {
          witness: {
            authority,
            windowSeconds: WINDOW,
            ...(endings ? { endings } : {}),
            ...(hookEndings ? { hookEndings } : {}),
          },
        }
      : {}),
  });
  const { turnPhase, lastTurn, witness } = site.charts;
  const turns: TurnLifecycle[] = [];
  const disagreements: WitnessDisagreement[] = [];
  const driver = new TurnDriver({
    turnPhase,
    lastTurn,
    witness,
    hub,
    timers,
    nextTurnId: () => 'turn-x',
    onTransition: () => undefined,
    onTurn: (ev) => turns.push(ev),
    onDisagreement: (d) => disagreements.push(d),
  });
  let t = T0;
  let text = '> prompt';
  const h = {
    get t() {
      return t;
    },
    turns,
    disagreements,
    driver,
    wait(dt: number) {
      t += dt;
      clock.advanceTo(t);
      timers.advanceTo(t);
    },
    frame(signals: Partial<TurnSignals> = {}) {
      h.wait(0.25);
      driver.frame(t, { available: true, signals: { ...IDLE, ...signals }, projectionText: text });
    },
    reply() {
      text += '\n● reply';
    },
    arm() {
      h.frame();
      h.wait(0.25);
      driver.armExplicit(t, 'turn-1');
      driver.recordAvailable(t, true);
      h.record({ type: 'turn_started', event: 'user', position: { file: '/r', offset: 0 } });
    },
    record(e: RecordEvent) {
      driver.recordEvent(t, { ...e, atMs: t * 1000 } as RecordEvent);
    },
    /** A hook's event: the prompt taken (`UserPromptSubmit`), or an ending. */
    hook(event: string, ending?: RecordedEnding) {
      driver.hookEvent(
        t,
        ending ? { type: 'turn_ended', event, ending } : { type: 'turn_started', event },
      );
    },
    /** Arms a turn whose start only the hook tells (no session record followed). */
    armHook() {
      h.frame();
      h.wait(0.25);
      driver.armExplicit(t, 'turn-1');
      h.hook('UserPromptSubmit');
    },
    ended(ending: RecordedEnding, offset = 100) {
      h.record({ type: 'turn_ended', ending, event: 'end', position: { file: '/r', offset } });
    },
    ends() {
      return turns.flatMap((x) =>
        x.kind === 'turn.ended'
          ? [{ outcome: x.outcome, witness: x.witness, at: +(x.t - T0).toFixed(2) }]
          : [],
      );
    },
    dispose() {
      driver.stop();
      timers.dispose();
      site.dispose();
    },
  };
  return h;
}

let current: ReturnType<typeof harness> | null = null;
/** Keeps `h` to be disposed after its test (importing this registers that). */
export const kept = (h: ReturnType<typeof harness>) => (current = h);
/** A harness with `authority` as the completion witness, disposed after its test. */
export const make = (a: CompletionAuthority | null) => kept(harness(a));
afterEach(() => current?.dispose());

/** A reply that streams for a while and then stands as a success candidate. */
export function streamThenCandidate(h: ReturnType<typeof harness>) {
  h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
  h.reply();
  h.frame({ activeReasons: ['spinner'], readyPosture: 'no' });
  h.frame({ successCandidate: true });
}
