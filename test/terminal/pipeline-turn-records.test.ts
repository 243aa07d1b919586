/**
 * The pipeline's record stream (contracts.md §4): turns are recorded as they start, end and
 * reopen.
 */
import { describe, expect, it } from 'vitest';
import { linePipeline } from './internal/line-profile.js';
import { payload } from './internal/record-payload.js';

describe('turn records', () => {
  it('a submitted turn: started, its transitions name it, and it ends with its outcome', async () => {
    const { frame, at, p, ofKind, records } = linePipeline();
    frame(0, 'ready');
    const id = p.submit(1);
    expect(id).toBe('turn-1');
    frame(2, 'you: hi\nworking');
    frame(3, 'you: hi\nhello\nreplied');
    at(10);
    expect((await ofKind('turn.started')).map(payload)).toEqual([
      {
        kind: 'turn.started',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'explicit_input',
        startedAt: 1,
      },
    ]);
    expect((await ofKind('turn.ended')).map(payload)).toEqual([
      {
        kind: 'turn.ended',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'explicit_input',
        outcome: 'success',
        t: 4,
      },
    ]);
    const states = await ofKind('state');
    // At 1 the stability window of the first frame ends too (its own record, no evidence).
    expect(states.filter((s) => s.t === 1).map((s) => s.evidence?.detector ?? null)).toEqual([
      null,
      'command:submit',
    ]);
    const submitted = states.filter((s) => s.t === 1)[1]!;
    expect(submitted.evidence).toEqual({
      profile: 'lines',
      profileVersion: '1.0.0',
      detector: 'command:submit',
      rule: 'submit',
      screenHash: null,
    });
    expect(submitted.changed).toMatchObject({
      'turn.phase': 'active',
      'turn.since': 1,
      'turn.current': { id: 'turn-1', source: 'explicit_input', startedAt: 1 },
      completion: {
        turnId: 'turn-1',
        status: 'waiting',
        sawWorking: false,
        sawProjectionChange: false,
      },
    });
    // The phase enters the turn it starts, named.
    expect(submitted.transitions).toContainEqual(
      expect.objectContaining({
        machine: 'turnPhase',
        from: 'ready',
        to: 'active',
        turnId: 'turn-1',
      }),
    );
    // The completion chart's transitions name the turn by its id, not the kernel's number.
    const completion = states
      .flatMap((s) => s.transitions)
      .filter((tr) => tr.machine === 'completion');
    expect(completion.length).toBeGreaterThan(0);
    for (const tr of completion) {
      expect(tr.turnId).toBe('turn-1');
      expect('turn' in tr).toBe(false);
    }
    // Readiness belongs to no turn.
    const readiness = states
      .flatMap((s) => s.transitions)
      .filter((tr) => tr.machine === 'readiness');
    expect(readiness.some((tr) => 'turnId' in tr)).toBe(false);
    // The settle window elapsed at 4: the outcome is recorded by the timer, at its deadline.
    const settled = states.find((s) => s.changed['lastTurn.result'] === 'success')!;
    expect(payload(settled)).toMatchObject({
      t: 4,
      changed: {
        'lastTurn.result': 'success',
        'lastTurn.source': 'explicit_input',
        'lastTurn.turnId': 'turn-1',
        'lastTurn.at': 4,
      },
      evidence: null,
    });
    // The phase leaves the turn it ends, named.
    expect(settled.transitions).toContainEqual(
      expect.objectContaining({
        machine: 'turnPhase',
        from: 'active',
        to: 'ready',
        event: 'evt_turn_finished',
        turnId: 'turn-1',
      }),
    );
    expect(settled.transitions).toContainEqual({
      machine: 'lastTurn',
      from: 'none',
      to: 'success',
      event: 'evt_success_settled',
      rule: 'e_success_settled',
      turnId: 'turn-1',
    });
    expect(p.state.lastTurn).toEqual({
      result: 'success',
      source: 'explicit_input',
      turnId: 'turn-1',
      at: 4,
    });
    expect(p.state.completion).toMatchObject({
      turnId: 'turn-1',
      sawWorking: true,
      sawProjectionChange: true,
    });
    // Every record of the stream is of this terminal.
    expect((await records()).every((r) => r.terminalId === 't1')).toBe(true);
  });

  it("the completion shows the observer's payload when it gives one, and no payload otherwise", () => {
    const observed = linePipeline({
      observer: (obs, ev) => (ev.sawWorking ? { reply: obs.projectionText } : null),
    });
    const plain = linePipeline();
    for (const { frame, at, p } of [observed, plain]) {
      frame(0, 'ready');
      p.submit(1);
      frame(2, 'you: hi\nworking');
      frame(3, 'you: hi\nhello\nready');
      at(10);
    }
    expect(observed.p.state.completion).toEqual({
      turnId: 'turn-1',
      status: 'completed',
      sawWorking: true,
      sawProjectionChange: true,
      payload: { reply: 'you: hi\nhello' },
    });
    expect(plain.p.state.completion).toEqual({
      turnId: 'turn-1',
      status: 'completed',
      sawWorking: true,
      sawProjectionChange: true,
    });
  });

  it('a turn submitted over an open one ends that one with no outcome', async () => {
    const { frame, p, ofKind } = linePipeline();
    frame(0, 'ready');
    p.submit(1);
    frame(1.5, 'working');
    expect(p.submit(2)).toBe('turn-2');
    expect((await ofKind('turn.ended')).map(payload)).toEqual([
      {
        kind: 'turn.ended',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'explicit_input',
        outcome: 'none',
        t: 2,
      },
    ]);
    expect((await ofKind('turn.started')).map((r) => r.turnId)).toEqual(['turn-1', 'turn-2']);
    expect(p.state.completion?.turnId).toBe('turn-2');
  });

  it('a turn seen on the screen alone takes the next id, inferred from the surface', async () => {
    const { frame, p, ofKind } = linePipeline();
    frame(0, 'ready');
    frame(1, 'working');
    expect((await ofKind('turn.started')).map(payload)).toEqual([
      {
        kind: 'turn.started',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'surface_inference',
        startedAt: 1,
      },
    ]);
    expect(p.state.turn).toEqual({
      phase: 'active',
      since: 1,
      current: { id: 'turn-1', source: 'surface_inference', startedAt: 1 },
    });
    // No explicit turn: no completion is reported.
    expect(p.state.completion).toBeNull();
    frame(2, 'interrupted');
    expect((await ofKind('turn.ended')).map(payload)).toEqual([
      {
        kind: 'turn.ended',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'surface_inference',
        outcome: 'interrupted',
        t: 2,
      },
    ]);
    frame(3, 'working');
    frame(4, 'failed');
    expect((await ofKind('turn.ended')).map((r) => [r.turnId, r.outcome])).toEqual([
      ['turn-1', 'interrupted'],
      ['turn-2', 'known_failure'],
    ]);
    expect(p.state.lastTurn).toEqual({
      result: 'known_failure',
      source: 'surface_inference',
      turnId: 'turn-2',
      at: 4,
    });
  });

  it('a reply rewritten right after its success settled reopens the turn', async () => {
    const { frame, at, p, ofKind } = linePipeline();
    frame(0, 'ready');
    p.submit(1);
    frame(2, 'working');
    frame(3, 'hello\nreplied');
    at(4);
    expect(p.state.lastTurn.result).toBe('success');
    frame(4.5, 'hello again\nreplied');
    expect((await ofKind('turn.reopened')).map(payload)).toEqual([
      {
        kind: 'turn.reopened',
        terminalId: 't1',
        turnId: 'turn-1',
        source: 'explicit_input',
        startedAt: 1,
        t: 4.5,
      },
    ]);
    const last = (await ofKind('state')).at(-1)!;
    expect(last.transitions).toContainEqual({
      machine: 'lastTurn',
      from: 'success',
      to: 'none',
      event: 'evt_success_retracted',
      rule: 'retract_rewritten',
      turnId: 'turn-1',
    });
    expect(p.state.lastTurn).toEqual({ result: 'none', source: 'none', turnId: null, at: null });
    expect(p.state.turn.current).toEqual({ id: 'turn-1', source: 'explicit_input', startedAt: 1 });
  });
});
