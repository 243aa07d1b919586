/**
 * What the turn-phase chart reads of a frame against the open turn (docs/statecharts.md §4,
 * machines/turnPhase.frames.ts): the turn's own evidence as frames fold into it, whose marker is
 * the turn's own, and when a turn was withdrawn. Each case beside its neighbour one fact away.
 */
import { describe, expect, it } from 'vitest';
import {
  evidenceWith,
  markerOf,
  ownMarker,
  screenPrint,
  withdrawn,
} from '../../machines/turnPhase.frames.js';
import type { TurnEvidence, TurnFrame, TurnPhaseContext } from '../../machines/turnPhase.types.js';
import { IDLE } from './internal/turn-phase-chart.js';

function frame(o: Partial<TurnFrame['signals']> & { projection?: string } = {}): TurnFrame {
  const { projection = 'A', ...signals } = o;
  return {
    t: 10,
    available: true,
    projection,
    signals: { ...IDLE, ...signals },
  } as TurnFrame;
}

const armed = (o: Partial<TurnEvidence> = {}): TurnEvidence => ({
  projectionAtArm: 'A',
  printAtArm: null,
  sawActive: false,
  projectionChanged: false,
  markerAtArm: null,
  markerChanged: false,
  ...o,
});
const ctx = (evidence: TurnEvidence | null): TurnPhaseContext =>
  ({ evidence }) as unknown as TurnPhaseContext;

describe('a frame’s marker', () => {
  it('an interrupt or a failure, told apart by kind and message; none is null', () => {
    expect(markerOf(frame())).toBeNull();
    const failure = (kind: string, message: string) =>
      markerOf(frame({ knownFailure: { kind, message } }));
    expect(failure('api_error', 'x')).not.toBeNull();
    expect(failure('api_error', 'x')).toBe(failure('api_error', 'x'));
    expect(failure('api_error', 'x')).not.toBe(failure('rate_limit', 'x'));
    expect(failure('api_error', 'x')).not.toBe(failure('api_error', 'y'));
    expect(markerOf(frame({ interrupted: true }))).not.toBe(failure('api_error', 'x'));
  });
});

describe('the open turn’s evidence, frame by frame', () => {
  it('none without an open turn', () => {
    expect(evidenceWith(ctx(null), frame())).toBeNull();
  });

  it('the armed projection shown again is no change; another one is, and the text is let go for its print', () => {
    expect(evidenceWith(ctx(armed()), frame({ projection: 'A' }))).toEqual(armed());
    expect(evidenceWith(ctx(armed()), frame({ projection: 'B' }))).toEqual(
      armed({ projectionAtArm: null, printAtArm: screenPrint('A'), projectionChanged: true }),
    );
  });

  it('once let go, the armed projection is compared by its print', () => {
    const printed = armed({ projectionAtArm: null, printAtArm: screenPrint('A') });
    expect(evidenceWith(ctx(printed), frame({ projection: 'A' }))?.projectionChanged).toBe(false);
    expect(evidenceWith(ctx(printed), frame({ projection: 'B' }))).toEqual({
      ...printed,
      projectionChanged: true,
    });
  });

  it('a restored turn (no projection, no print) takes the next frame’s as its own', () => {
    const restored = armed({ projectionAtArm: null, printAtArm: null });
    expect(evidenceWith(ctx(restored), frame({ projection: 'C' }))).toEqual(
      armed({ projectionAtArm: 'C', printAtArm: null }),
    );
  });

  it('after the projection changed, activity and another marker are still noted', () => {
    const moved = armed({
      projectionAtArm: null,
      printAtArm: screenPrint('A'),
      projectionChanged: true,
    });
    expect(evidenceWith(ctx(moved), frame({ projection: 'B' }))).toBe(moved);
    expect(
      evidenceWith(ctx(moved), frame({ projection: 'B', activeReasons: ['spinner'] })),
    ).toEqual({
      ...moved,
      sawActive: true,
    });
    expect(evidenceWith(ctx(moved), frame({ projection: 'B', interrupted: true }))).toEqual({
      ...moved,
      markerChanged: true,
    });
    // Noted once, kept: a later quiet frame takes nothing back.
    const seen = { ...moved, sawActive: true, markerChanged: true };
    expect(evidenceWith(ctx(seen), frame({ projection: 'B' }))).toBe(seen);
  });
});

describe('whose marker a frame shows', () => {
  const interruptedKey = markerOf(frame({ interrupted: true }));

  it('a marker that was not on screen when the turn was armed is the turn’s own', () => {
    expect(ownMarker(ctx(armed()), frame({ interrupted: true }))).toBe(true);
  });
  it('the last turn’s marker still drawn is not', () => {
    expect(
      ownMarker(ctx(armed({ markerAtArm: interruptedKey })), frame({ interrupted: true })),
    ).toBe(false);
  });
  it('the same marker shown again after it went away is', () => {
    const again = armed({ markerAtArm: interruptedKey, markerChanged: true });
    expect(ownMarker(ctx(again), frame({ interrupted: true }))).toBe(true);
  });
  it('no marker, or no open turn: none', () => {
    expect(ownMarker(ctx(armed()), frame())).toBe(false);
    expect(ownMarker(ctx(null), frame({ interrupted: true }))).toBe(false);
  });
});

describe('a withdrawn turn: it worked, then its prompt came back as a draft on the armed screen', () => {
  const worked = armed({ sawActive: true });
  it('withdrawn', () => {
    expect(withdrawn(ctx(worked), frame({ editingInput: 'yes' }))).toBe(true);
  });
  it.each([
    ['it never worked', ctx(armed()), frame({ editingInput: 'yes' })],
    ['it still works', ctx(worked), frame({ editingInput: 'yes', activeReasons: ['spinner'] })],
    ['no draft', ctx(worked), frame({ editingInput: 'no' })],
    [
      'another screen than the armed one',
      ctx(worked),
      frame({ editingInput: 'yes', projection: 'B' }),
    ],
    ['no open turn', ctx(null), frame({ editingInput: 'yes' })],
  ])('not when %s', (_, c, f) => {
    expect(withdrawn(c, f)).toBe(false);
  });
  it('the armed screen known by its print only', () => {
    const printed = { ...worked, projectionAtArm: null, printAtArm: screenPrint('A') };
    expect(withdrawn(ctx(printed), frame({ editingInput: 'yes' }))).toBe(true);
    expect(withdrawn(ctx(printed), frame({ editingInput: 'yes', projection: 'B' }))).toBe(false);
    const neither = { ...worked, projectionAtArm: null, printAtArm: null };
    expect(withdrawn(ctx(neither), frame({ editingInput: 'yes' }))).toBe(false);
  });
});
