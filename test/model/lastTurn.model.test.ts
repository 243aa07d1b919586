import { expect } from 'vitest';
import { lastTurnMachine } from '../../machines/lastTurn.js';
import { describeModel, type Sut } from './internal/harness.js';
import { TrackerHarness } from './internal/tracker-sut.js';

/** Last-turn paths on a real TurnTracker: each outcome is a whole turn of raw frames. */
function lastTurnSut(): Sut {
  const h = new TrackerHarness();
  let retractions = 0;
  return {
    state: () => h.tracker.snapshot().lastTurn.result,
    dispose: () => h.dispose(),
    step(event, from) {
      let id: string | null = null;
      const edges = h.capture('lastTurn', () => {
        switch (event.type) {
          case 'evt_success_settled':
            id = h.armExplicit();
            return h.settleSuccess();
          case 'evt_interrupted':
            // Activity on screen starts a turn by itself, unless the settled success would
            // then count as resumed (retracted): then the turn is submitted explicitly.
            if (from === 'success') id = h.armExplicit();
            else h.activeFrame();
            h.newText();
            return h.frame({ interrupted: true, readyPosture: 'yes' });
          case 'evt_known_failure':
            id = h.armExplicit();
            h.newText();
            return h.frame({
              knownFailure: { kind: 'server_error', message: 'API Error: 500' },
            });
          case 'evt_success_retracted':
            retractions += 1;
            // The same turn visibly goes on: activity, or the reply is rewritten.
            if (retractions % 2 === 1) return h.activeFrame();
            h.newText();
            return h.frame({});
          default:
            throw new Error(`no raw input for ${event.type}`);
        }
      });
      const last = h.tracker.snapshot().lastTurn;
      if (id !== null) expect(last).toMatchObject({ turnId: id, source: 'explicit_input' });
      if (event.type === 'evt_success_retracted') {
        expect(last).toMatchObject({ source: 'none', turnId: null });
      }
      return edges;
    },
  };
}

describeModel({
  name: 'lastTurn',
  machine: lastTurnMachine,
  inputs: [undefined],
  createSut: lastTurnSut,
});
