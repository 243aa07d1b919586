import { describe, expect, it } from 'vitest';
import { completionMachine } from '../../machines/completion.js';
import { readinessMachine } from '../../machines/readiness.js';
import type { Availability, BusinessState, InputMode } from '../../machines/surface.js';
import { evidence, raisedBy } from './internal/raised.js';

const AVAIL: Availability[] = ['supported', 'unsupported', 'disconnected', 'unknown'];
const BUSINESS: BusinessState[] = ['idle', 'working', 'awaiting_operator', 'unknown'];
const INPUT: InputMode[] = ['freeform', 'modal', 'closed', 'unknown'];
const obs = (availability: Availability, businessState: BusinessState, inputMode: InputMode) => ({
  availability,
  businessState,
  inputMode,
});
const NO_EVIDENCE = evidence();
const WORKED = evidence({ sawWorking: true });
const CHANGED = evidence({ sawProjectionChange: true });

type Obs = ReturnType<typeof obs>;
/** The event the readiness chart raises for `o` while in `state`. */
const classifyReadiness = (o: Obs, state: string) => raisedBy(readinessMachine, state, o);
/** The event one turn's completion chart raises for `o` with this evidence while in `state`. */
const classifyCompletion = (o: Obs, ev: ReturnType<typeof evidence>, state: string) =>
  raisedBy(completionMachine, state, o, { evidence: ev });

describe('readiness chart: classification (statecharts.md §1, first match wins)', () => {
  it.each([
    [
      'row 1: unsupported',
      obs('unsupported', 'idle', 'freeform'),
      'evt_surface_unsupported_or_disconnected',
    ],
    [
      'row 1: disconnected beats awaiting_operator',
      obs('disconnected', 'awaiting_operator', 'modal'),
      'evt_surface_unsupported_or_disconnected',
    ],
    [
      'row 2: awaiting operator',
      obs('supported', 'awaiting_operator', 'modal'),
      'evt_operator_blocked',
    ],
    [
      'row 2: awaiting operator, any input mode',
      obs('supported', 'awaiting_operator', 'unknown'),
      'evt_operator_blocked',
    ],
    ['row 3: availability unknown', obs('unknown', 'idle', 'freeform'), 'evt_unknown_for_stall'],
    [
      'row 3: availability unknown beats awaiting_operator',
      obs('unknown', 'awaiting_operator', 'modal'),
      'evt_unknown_for_stall',
    ],
    [
      'row 3: supported, business unknown',
      obs('supported', 'unknown', 'freeform'),
      'evt_unknown_for_stall',
    ],
    ['row 4: idle + freeform', obs('supported', 'idle', 'freeform'), 'evt_submit_ready'],
    ['row 5: working', obs('supported', 'working', 'freeform'), 'evt_known_nonready'],
    ['row 5: modal', obs('supported', 'idle', 'modal'), 'evt_known_nonready'],
    ['row 5: closed', obs('supported', 'idle', 'closed'), 'evt_known_nonready'],
    [
      'row 5: inputMode unknown with a known business state is NOT unknown-for-stall',
      obs('supported', 'idle', 'unknown'),
      'evt_known_nonready',
    ],
    [
      'row 5: working with inputMode unknown',
      obs('supported', 'working', 'unknown'),
      'evt_known_nonready',
    ],
  ] as const)('%s', (_name, o, event) => {
    expect(classifyReadiness(o, 'waiting')).toBe(event);
    expect(classifyReadiness(o, 'ready')).toBe(event);
    expect(classifyReadiness(o, 'unknown')).toBe(event);
  });

  it.each([
    [obs('supported', 'awaiting_operator', 'modal'), 'evt_stalled_recovered_to_blocked'],
    [obs('supported', 'idle', 'freeform'), 'evt_stalled_recovered_to_submit_ready'],
    [obs('supported', 'working', 'closed'), 'evt_stalled_recovered_to_waiting'],
    [obs('supported', 'idle', 'unknown'), 'evt_stalled_recovered_to_waiting'],
    [obs('unsupported', 'idle', 'freeform'), 'evt_surface_unsupported_or_disconnected'],
    // Still unknown: the chart stays stalled and raises nothing.
    [obs('supported', 'unknown', 'unknown'), null],
  ] as const)('from stalled: %o → %s', (o, event) => {
    expect(classifyReadiness(o, 'stalled')).toBe(event);
  });

  it('agrees with the table for every combination of values', () => {
    for (const a of AVAIL)
      for (const b of BUSINESS)
        for (const i of INPUT) {
          const want =
            a === 'unsupported' || a === 'disconnected'
              ? 'evt_surface_unsupported_or_disconnected'
              : a === 'supported' && b === 'awaiting_operator'
                ? 'evt_operator_blocked'
                : a === 'unknown' || b === 'unknown'
                  ? 'evt_unknown_for_stall'
                  : b === 'idle' && i === 'freeform'
                    ? 'evt_submit_ready'
                    : 'evt_known_nonready';
          expect(classifyReadiness(obs(a, b, i), 'waiting'), `${a}/${b}/${i}`).toBe(want);
        }
  });
});

describe('completion chart: classification (statecharts.md §2, first match wins)', () => {
  it.each([
    [
      '(1) disconnected beats working',
      obs('disconnected', 'working', 'closed'),
      WORKED,
      'evt_surface_unsupported_or_disconnected',
    ],
    [
      '(2) operator blocked',
      obs('supported', 'awaiting_operator', 'modal'),
      WORKED,
      'evt_operator_blocked',
    ],
    ['(3) unknown for stall', obs('unknown', 'working', 'closed'), WORKED, 'evt_unknown_for_stall'],
    [
      '(3) supported + business unknown',
      obs('supported', 'unknown', 'freeform'),
      CHANGED,
      'evt_unknown_for_stall',
    ],
    [
      '(4) working, freeform',
      obs('supported', 'working', 'freeform'),
      NO_EVIDENCE,
      'evt_working_seen',
    ],
    [
      '(4) working, any input mode',
      obs('supported', 'working', 'unknown'),
      NO_EVIDENCE,
      'evt_working_seen',
    ],
    [
      '(5) submit ready + sawWorking',
      obs('supported', 'idle', 'freeform'),
      WORKED,
      'evt_submit_ready_with_activity',
    ],
    [
      '(5) submit ready + projection change',
      obs('supported', 'idle', 'freeform'),
      CHANGED,
      'evt_submit_ready_with_activity',
    ],
    [
      '(6) submit ready without evidence',
      obs('supported', 'idle', 'freeform'),
      NO_EVIDENCE,
      'evt_known_noncandidate',
    ],
    [
      '(6) idle modal with evidence',
      obs('supported', 'idle', 'modal'),
      WORKED,
      'evt_known_noncandidate',
    ],
    [
      '(6) idle, inputMode unknown',
      obs('supported', 'idle', 'unknown'),
      WORKED,
      'evt_known_noncandidate',
    ],
  ] as const)('%s', (_name, o, ev, event) => {
    expect(classifyCompletion(o, ev, 'waiting')).toBe(event);
    expect(classifyCompletion(o, ev, 'in_progress')).toBe(event);
    expect(classifyCompletion(o, ev, 'blocked')).toBe(event);
  });

  it('rule (6) from candidate_complete is evt_state_signature_changed; a candidate stays one', () => {
    expect(
      classifyCompletion(obs('supported', 'idle', 'closed'), WORKED, 'candidate_complete'),
    ).toBe('evt_state_signature_changed');
    // A candidate again raises nothing: the chart stays candidate_complete (the stability
    // window restarts when its signature is new; the driver owns that timer).
    expect(
      classifyCompletion(obs('supported', 'idle', 'freeform'), WORKED, 'candidate_complete'),
    ).toBeNull();
  });

  it.each([
    ['unknown', obs('supported', 'working', 'closed'), WORKED, 'evt_stalled_recovered_to_working'],
    [
      'unknown',
      obs('supported', 'idle', 'freeform'),
      CHANGED,
      'evt_stalled_recovered_to_candidate',
    ],
    ['unknown', obs('supported', 'idle', 'freeform'), NO_EVIDENCE, 'evt_known_noncandidate'],
    ['unknown', obs('supported', 'awaiting_operator', 'modal'), WORKED, 'evt_operator_blocked'],
    ['stalled', obs('supported', 'working', 'closed'), WORKED, 'evt_stalled_recovered_to_working'],
    ['stalled', obs('supported', 'idle', 'freeform'), WORKED, 'evt_stalled_recovered_to_candidate'],
    [
      'stalled',
      obs('supported', 'idle', 'freeform'),
      NO_EVIDENCE,
      'evt_stalled_recovered_to_waiting',
    ],
    ['stalled', obs('supported', 'idle', 'closed'), WORKED, 'evt_stalled_recovered_to_waiting'],
    [
      'stalled',
      obs('supported', 'awaiting_operator', 'modal'),
      WORKED,
      'evt_stalled_recovered_to_blocked',
    ],
    [
      'stalled',
      obs('disconnected', 'idle', 'freeform'),
      WORKED,
      'evt_surface_unsupported_or_disconnected',
    ],
  ] as const)('recovered variant from %s: %o', (state, o, ev, event) => {
    expect(classifyCompletion(o, ev, state)).toBe(event);
  });
});
