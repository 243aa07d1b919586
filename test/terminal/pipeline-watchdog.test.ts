/**
 * The session watchdog in the pipeline (statecharts.md §7, contracts.md §4): a window is
 * journaled when it opens or is resumed; exceeding it appends exactly one cancel record, and
 * only once that record is durable is a running turn interrupted; the session is then blocked
 * until an explicit resume. A window the journal remembers is continued, never re-fired.
 */
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import type { JournalRecord, RestoreFacts } from '../../src/schemas/record.js';
import { linePipeline } from './internal/line-profile.js';

function payload(r: JournalRecord): Record<string, unknown> {
  const { v: _v, seq: _seq, at: _at, ...rest } = r;
  return rest;
}

const REQUEST = {
  target: 'work:1.0',
  tool: 'lines',
  toolVersion: '1.0.0',
  watchdogBudgetSeconds: 10,
};

function restored(over: Partial<RestoreFacts>): RestoreFacts {
  return { request: REQUEST, lastTurn: null, openTurn: null, watchdog: null, ...over };
}

describe('watchdog window', () => {
  it('without a budget the session opens no window and is never cancelled', async () => {
    const { p, at, ofKind } = linePipeline();
    p.startSession(0);
    at(100_000);
    expect(await ofKind('watchdog.window')).toEqual([]);
    expect(await ofKind('watchdog.cancel')).toEqual([]);
    expect(p.state.watchdog).toEqual({
      state: 'disabled',
      sessionStartedAt: null,
      budgetSeconds: 0,
    });
    expect(p.state.session).toEqual({ status: 'running', stopReasonCode: null });
  });

  it('opens its window at the start, journaled; exceeding it cancels once and blocks the session', async () => {
    const { p, at, ofKind, frame } = linePipeline({ watchdogBudgetSeconds: 10 });
    frame(0, 'ready');
    p.startSession(2);
    expect((await ofKind('watchdog.window')).map(payload)).toEqual([
      {
        kind: 'watchdog.window',
        terminalId: 't1',
        reason: 'started',
        sessionStartedAt: 2,
        budgetSeconds: 10,
      },
    ]);
    expect(p.state.watchdog).toEqual({ state: 'armed', sessionStartedAt: 2, budgetSeconds: 10 });
    at(11.5);
    expect(p.state.watchdog.state).toBe('armed');
    at(12.5);
    expect(p.state.watchdog.state).toBe('fired');
    expect(p.state.session).toEqual({
      status: 'blocked',
      stopReasonCode: 'watchdog_wall_clock_exceeded',
    });
    at(100);
    expect((await ofKind('watchdog.cancel')).map(payload)).toEqual([
      {
        kind: 'watchdog.cancel',
        terminalId: 't1',
        aggregateType: 'runtime_control',
        aggregateId: 't1',
        eventKind: 'runtime.watchdog.cancel',
        reason: 'wall_clock_exceeded',
        sessionStartedAt: new Date(2000).toISOString(),
        firedAt: new Date(12_000).toISOString(),
        elapsedSeconds: 10,
        configuredBudgetSeconds: 10,
      },
    ]);
    // The firing is a state change of its own, decided by the timer.
    const fired = (await ofKind('state')).find((s) => s.changed['watchdog.state'] === 'fired')!;
    expect(fired).toMatchObject({
      t: 12,
      evidence: null,
      changed: {
        'watchdog.state': 'fired',
        'session.status': 'blocked',
        'session.stopReasonCode': 'watchdog_wall_clock_exceeded',
      },
    });
    expect(fired.transitions).toContainEqual(
      expect.objectContaining({ machine: 'watchdog', from: 'armed', to: 'fired' }),
    );
  });

  it('the cancel record gives times as ISO on the live clock, whole seconds rounded', async () => {
    const origin = Date.parse('2025-03-01T10:00:00.000Z');
    const { p } = linePipeline({ watchdogBudgetSeconds: 2.6, originMs: origin });
    const journal = p.journal;
    p.startSession(0.2);
    p.advance(5);
    await journal.flush();
    const cancel = journal.read().find((r) => r.kind === 'watchdog.cancel');
    expect(cancel).toMatchObject({
      sessionStartedAt: '2025-03-01T10:00:00.200Z',
      firedAt: '2025-03-01T10:00:02.800Z',
      elapsedSeconds: 3,
      configuredBudgetSeconds: 3,
    });
  });

  it('an explicit resume opens a fresh window from that moment, journaled as resumed', async () => {
    const { p, at, ofKind } = linePipeline({ watchdogBudgetSeconds: 10 });
    p.startSession(0);
    at(10.5);
    expect(p.state.watchdog.state).toBe('fired');
    p.resumeSession(20);
    expect(p.state.watchdog).toEqual({ state: 'armed', sessionStartedAt: 20, budgetSeconds: 10 });
    expect(p.state.session).toEqual({ status: 'running', stopReasonCode: null });
    expect((await ofKind('watchdog.window')).map((w) => [w.reason, w.sessionStartedAt])).toEqual([
      ['started', 0],
      ['resumed', 20],
    ]);
    const resumed = (await ofKind('state')).at(-1)!;
    expect(resumed).toMatchObject({
      t: 20,
      changed: { 'watchdog.state': 'armed', 'watchdog.sessionStartedAt': 20 },
      evidence: {
        profile: 'lines',
        profileVersion: '1.0.0',
        detector: 'command:resume',
        rule: 'resume',
        screenHash: null,
      },
    });
    at(29.5);
    expect(p.state.watchdog.state).toBe('armed');
    at(30.5);
    expect(p.state.watchdog.state).toBe('fired');
    expect(await ofKind('watchdog.cancel')).toHaveLength(2);
  });

  it('a resume while the window runs opens none and journals nothing', async () => {
    const { p, at, ofKind } = linePipeline({ watchdogBudgetSeconds: 10 });
    p.startSession(0);
    const before = (await ofKind('state')).length;
    p.resumeSession(5);
    expect(p.state.watchdog).toEqual({ state: 'armed', sessionStartedAt: 0, budgetSeconds: 10 });
    expect(await ofKind('watchdog.window')).toHaveLength(1);
    expect(await ofKind('state')).toHaveLength(before);
    at(10.5);
    expect(p.state.watchdog.state).toBe('fired');
  });

  it('a finished session is no longer watched', async () => {
    const { p, at, ofKind } = linePipeline({ watchdogBudgetSeconds: 10 });
    p.startSession(0);
    p.finishSession(4);
    expect(p.state.watchdog.state).toBe('finished');
    expect(p.state.session).toEqual({ status: 'finished', stopReasonCode: null });
    at(50);
    expect(await ofKind('watchdog.cancel')).toEqual([]);
    expect((await ofKind('state')).at(-1)).toMatchObject({
      t: 4,
      changed: { 'watchdog.state': 'finished' },
    });
  });
});

describe('cancelling a session', () => {
  it('interrupts a running turn once, and only after the cancel record is durable', async () => {
    const seen: Array<JournalRecord['kind'][]> = [];
    const { p, at, frame } = linePipeline({
      watchdogBudgetSeconds: 10,
      interrupt: () => {
        seen.push(p.journal.read().map((r) => r.kind));
        return Promise.resolve();
      },
    });
    p.startSession(0);
    frame(1, 'ready');
    p.submit(2);
    frame(3, 'working');
    at(10.5);
    // Not before the record is durable.
    expect(seen).toEqual([]);
    await p.journal.flush();
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('watchdog.cancel');
    at(60);
    await p.journal.flush();
    expect(seen).toHaveLength(1);
  });

  it('does not interrupt an agent that runs no turn', async () => {
    let interrupts = 0;
    const { p, at, frame } = linePipeline({
      watchdogBudgetSeconds: 10,
      interrupt: () => {
        interrupts += 1;
        return Promise.resolve();
      },
    });
    p.startSession(0);
    frame(1, 'ready');
    at(10.5);
    await p.journal.flush();
    await new Promise((r) => setImmediate(r));
    expect(p.state.watchdog.state).toBe('fired');
    expect(interrupts).toBe(0);
  });

  it('does not interrupt when the cancel record could not be written', async () => {
    const clock = new VirtualClock();
    const journal = new Journal({ dataDir: null, scheduler: clock.scheduler });
    let interrupts = 0;
    const { p, at, frame } = linePipeline({
      scheduler: clock.scheduler,
      journal,
      watchdogBudgetSeconds: 10,
      interrupt: () => {
        interrupts += 1;
        return Promise.resolve();
      },
    });
    p.startSession(0);
    frame(1, 'ready');
    p.submit(2);
    frame(3, 'working');
    await journal.close();
    at(10.5);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(p.state.watchdog.state).toBe('fired');
    expect(interrupts).toBe(0);
  });

  it('an interrupt that fails is not an unhandled error', async () => {
    const { p, at, frame } = linePipeline({
      watchdogBudgetSeconds: 10,
      interrupt: () => Promise.reject(new Error('pane gone')),
    });
    p.startSession(0);
    frame(1, 'ready');
    p.submit(2);
    frame(3, 'working');
    at(10.5);
    await p.journal.flush();
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(p.state.session.status).toBe('blocked');
  });
});

describe('restore from the journal', () => {
  it('continues the window the journal recorded: no new window, the same deadline', async () => {
    const { p, at, ofKind } = linePipeline({
      restore: restored({ watchdog: { sessionStartedAt: 0, fired: false } }),
    });
    p.startSession(4);
    expect(p.state.watchdog).toEqual({ state: 'armed', sessionStartedAt: 0, budgetSeconds: 10 });
    expect(await ofKind('watchdog.window')).toEqual([]);
    at(9.5);
    expect(p.state.watchdog.state).toBe('armed');
    at(10.5);
    expect(p.state.watchdog.state).toBe('fired');
    expect((await ofKind('watchdog.cancel')).map((c) => c.firedAt)).toEqual([
      new Date(10_000).toISOString(),
    ]);
  });

  it('a window that already fired stays fired and is not cancelled again', async () => {
    let interrupts = 0;
    const { p, at, ofKind, frame } = linePipeline({
      restore: restored({
        watchdog: { sessionStartedAt: 0, fired: true },
        openTurn: {
          turn: { id: 'turn-2', source: 'explicit_input', startedAt: 3 },
          hadEvidence: true,
        },
      }),
      interrupt: () => {
        interrupts += 1;
        return Promise.resolve();
      },
    });
    p.startSession(40);
    frame(41, 'working');
    at(100);
    await p.journal.flush();
    expect(p.state.watchdog.state).toBe('fired');
    expect(p.state.session.status).toBe('blocked');
    expect(await ofKind('watchdog.cancel')).toEqual([]);
    expect(interrupts).toBe(0);
  });

  it('the budget given to the terminal wins over the one it was attached with', () => {
    const { p } = linePipeline({
      watchdogBudgetSeconds: 30,
      restore: restored({ watchdog: { sessionStartedAt: 0, fired: false } }),
    });
    p.startSession(1);
    expect(p.state.watchdog.budgetSeconds).toBe(30);
  });

  it('the last turn the journal remembers is the last turn, reported again by nobody', async () => {
    const { p, frame, ofKind } = linePipeline({
      restore: restored({
        lastTurn: { result: 'interrupted', source: 'explicit_input', turnId: 'turn-3', at: 50 },
      }),
    });
    expect(p.state.lastTurn).toEqual({
      result: 'interrupted',
      source: 'explicit_input',
      turnId: 'turn-3',
      at: 50,
    });
    p.startSession(60);
    frame(61, 'ready');
    expect(await ofKind('turn.ended')).toEqual([]);
    const transitions = (await ofKind('state')).flatMap((s) => s.transitions);
    expect(transitions.filter((tr) => tr.machine === 'lastTurn')).toEqual([]);
    expect(p.state.lastTurn.result).toBe('interrupted');
  });

  it('each kind of last turn is restored as it was', () => {
    for (const result of ['success', 'interrupted', 'known_failure'] as const) {
      const { p } = linePipeline({
        restore: restored({
          lastTurn: { result, source: 'surface_inference', turnId: 'turn-9', at: 7 },
        }),
      });
      expect(p.state.lastTurn).toEqual({
        result,
        source: 'surface_inference',
        turnId: 'turn-9',
        at: 7,
      });
    }
  });

  it('a turn open when the terminal stopped goes on: active, and its outcome is recorded', async () => {
    const { p, frame, ofKind } = linePipeline({
      restore: restored({
        openTurn: {
          turn: { id: 'turn-4', source: 'explicit_input', startedAt: 60 },
          hadEvidence: true,
        },
      }),
    });
    expect(p.state.turn.current).toEqual({ id: 'turn-4', source: 'explicit_input', startedAt: 60 });
    p.startSession(70);
    expect(p.state.turn.phase).toBe('active');
    frame(71, 'interrupted');
    expect((await ofKind('turn.ended')).map(payload)).toEqual([
      {
        kind: 'turn.ended',
        terminalId: 't1',
        turnId: 'turn-4',
        source: 'explicit_input',
        outcome: 'interrupted',
        t: 71,
      },
    ]);
  });

  it("turn ids go on from the journal: never one the terminal was handed before, whatever other terminals' are", async () => {
    const clock = new VirtualClock();
    const journal = new Journal({ dataDir: null, scheduler: clock.scheduler });
    await journal.append({
      kind: 'turn.started',
      terminalId: 'other',
      turnId: 'turn-40',
      source: 'explicit_input',
      startedAt: 0,
    });
    await journal.append({
      kind: 'turn.started',
      terminalId: 't1',
      turnId: 'turn-7',
      source: 'explicit_input',
      startedAt: 0,
    });
    const { p, frame, ofKind } = linePipeline({ scheduler: clock.scheduler, journal });
    frame(0, 'ready');
    frame(1, 'working');
    expect(p.state.turn.current?.id).toBe('turn-8');
    expect(p.submit(2)).toBe('turn-9');
    expect((await ofKind('turn.started')).map((r) => r.turnId)).toEqual([
      'turn-40',
      'turn-7',
      'turn-8',
      'turn-9',
    ]);
  });
});
