import { turnPhaseMachine } from '../../machines/turnPhase.js';
import { describeModel, type Sut } from './internal/harness.js';
import { TrackerHarness } from './internal/tracker-sut.js';

/** Turn-phase paths on a real TurnTracker fed raw frames on virtual time. */
function turnPhaseSut(): Sut {
  const h = new TrackerHarness();
  return {
    state: () => h.tracker.snapshot().phase,
    dispose: () => h.dispose(),
    step(event, from) {
      return h.capture('turnPhase', () => {
        switch (event.type) {
          case 'evt_ready_posture':
            if (h.tracker.snapshot().current) {
              // A turn left running when posture was lost: the screen shows it interrupted.
              h.newText();
              return h.frame({ interrupted: true });
            }
            return h.frame({});
          case 'evt_turn_started':
            // Both ways a turn starts: a submit through paneward, or activity on screen.
            if (from === 'ready') return void h.armExplicit();
            return h.activeFrame();
          case 'evt_turn_finished':
            return h.settleSuccess();
          case 'evt_posture_lost':
            return h.frame({}, false);
          default:
            throw new Error(`no raw input for ${event.type}`);
        }
      });
    },
  };
}

describeModel({
  name: 'turnPhase',
  machine: turnPhaseMachine,
  inputs: [undefined],
  createSut: turnPhaseSut,
});
