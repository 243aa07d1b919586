/**
 * The pipeline's record stream (contracts.md §4): each public-state change is one `state`
 * record naming exactly the fields that changed, the chart transitions behind it and what they
 * were decided on (the profile's detector and rule and the screen's hash for a frame, the
 * command for a submit or resume, nothing for a timer); anomalies carry their own fields and no
 * others.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linePipeline } from './internal/line-profile.js';
import { payload } from './internal/record-payload.js';

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

describe('state records', () => {
  it('the first frame: every changed field with its new value, its transitions and the frame as evidence', async () => {
    const { frame, ofKind } = linePipeline();
    frame(0, 'ready');
    const [first, ...more] = await ofKind('state');
    expect(more).toEqual([]);
    expect(payload(first!)).toEqual({
      kind: 'state',
      terminalId: 't1',
      t: 0,
      changed: {
        'diagnostics.availability': 'available',
        'diagnostics.transport': 'tmux_up',
        'diagnostics.process': 'tui_up',
        'diagnostics.parse': 'parsed',
        'surface.availability': 'supported',
        'surface.businessState': 'idle',
        'surface.inputMode': 'freeform',
        'surface.uiContext': 'normal_prompt',
        'surface.acceptingInput': 'yes',
        'surface.editingInput': 'no',
        'surface.readyPosture': 'yes',
        'turn.phase': 'ready',
        'turn.since': 0,
        'readiness.status': 'ready',
        'readiness.since': 0,
        'chatContext.state': 'current',
      },
      transitions: expect.arrayContaining([
        {
          machine: 'diagnostics',
          from: 'unknown',
          to: 'available',
          event: 'evt_probe_available',
          rule: 'parsed',
        },
        {
          machine: 'readiness',
          from: 'waiting',
          to: 'ready',
          event: 'evt_submit_ready',
          rule: 'submit_ready',
        },
        expect.objectContaining({
          machine: 'turnPhase',
          from: 'unknown',
          to: 'ready',
          event: 'evt_ready_posture',
        }),
      ]),
      evidence: {
        profile: 'lines',
        profileVersion: '1.0.0',
        detector: 'lines@1',
        rule: 'ready',
        screenHash: hash('ready'),
      },
    });
    // No turn is open: no transition names one.
    expect(first!.kind === 'state' && first!.transitions.some((tr) => 'turnId' in tr)).toBe(false);
  });

  it('a frame that changes nothing is not recorded, and the clock alone is no change', async () => {
    const { frame, ofKind, p } = linePipeline({ config: { stabilitySeconds: 5 } });
    const published: number[] = [];
    p.state$.subscribe((s) => published.push(s.t));
    frame(0, 'ready');
    frame(0.5, 'ready');
    frame(1, 'ready');
    expect(await ofKind('state')).toHaveLength(1);
    expect(published).toEqual([0, 0]);
    expect(p.state.t).toBe(0);
  });

  it('a change decided by a timer is recorded at its deadline with no evidence', async () => {
    const { frame, at, ofKind, p } = linePipeline();
    frame(0, 'ready');
    at(3);
    const states = await ofKind('state');
    expect(states).toHaveLength(2);
    // The stability window (1 s by default) ends at 1, with no frame after the change.
    expect(payload(states[1]!)).toEqual({
      kind: 'state',
      terminalId: 't1',
      t: 1,
      changed: { 'stability.stable': true },
      transitions: [],
      evidence: null,
    });
    expect(p.state.stability).toEqual({ stable: true, stableForSeconds: 1 });
  });

  it('a frame after a timer is decided on that frame again', async () => {
    const { frame, at, ofKind } = linePipeline();
    frame(0, 'ready');
    at(2);
    frame(3, 'working');
    const last = (await ofKind('state')).at(-1)!;
    expect(last.t).toBe(3);
    expect(last.evidence).toEqual({
      profile: 'lines',
      profileVersion: '1.0.0',
      detector: 'lines@1',
      rule: 'working',
      screenHash: hash('working'),
    });
  });

  it('a terminal with no version names none in its evidence and its state', async () => {
    const { frame, ofKind, p } = linePipeline({ toolVersion: undefined });
    frame(0, 'ready');
    expect((await ofKind('state'))[0]!.evidence).toMatchObject({ profileVersion: null });
    expect(p.state.toolVersion).toBeNull();
  });

  it('a poll without a capture is decided on the probe: its outcome is the rule, no screen', async () => {
    const { frame, p, ofKind } = linePipeline();
    frame(0, 'ready');
    p.probe(1, { transport: 'tmux_missing', process: 'unknown' });
    const last = (await ofKind('state')).at(-1)!;
    expect(payload(last)).toMatchObject({
      t: 1,
      changed: expect.objectContaining({
        'diagnostics.availability': 'unavailable',
        'diagnostics.transport': 'tmux_missing',
        'diagnostics.process': 'unknown',
        'diagnostics.parse': 'transport_unavailable',
      }),
      evidence: {
        profile: 'lines',
        profileVersion: '1.0.0',
        detector: 'probe',
        rule: 'tmux_missing/unknown',
        screenHash: null,
      },
    });
  });
});

describe('stall anomalies', () => {
  it('carry their own fields and the parser family, nothing else', async () => {
    const { frame, at, ofKind } = linePipeline({ config: { stallTimeoutSeconds: 2 } });
    frame(0, 'ready');
    frame(1, 'something else');
    at(3);
    frame(4.5, 'ready');
    const anomalies = (await ofKind('anomaly'))
      .map(payload)
      .filter((a) => a.anomaly !== 'unrecognised_screen');
    expect(anomalies).toEqual([
      {
        kind: 'anomaly',
        terminalId: 't1',
        anomaly: 'stalled_entered',
        phase: 'readiness',
        t: 3,
        elapsedUnknownSeconds: 2,
        parserFamily: 'lines',
      },
      {
        kind: 'anomaly',
        terminalId: 't1',
        anomaly: 'stalled_recovered',
        phase: 'readiness',
        t: 4.5,
        elapsedStalledSeconds: 1.5,
        recoveredTo: 'ready',
        parserFamily: 'lines',
      },
    ]);
  });
});
