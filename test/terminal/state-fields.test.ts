/**
 * The public terminal state's helpers (contracts.md §3): the state a terminal shows before its
 * runtime publishes (restored facts included), and the dotted-path difference of two states
 * that state records carry, where the clock alone is never a change.
 */
import { describe, expect, it } from 'vitest';
import type { RestoreFacts } from '../../src/schemas/record.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { changedFields, initialState, sameState } from '../../src/terminal/state.js';

const BASE = {
  t: 12,
  terminalId: 'a',
  target: 'work:1.0',
  tool: 'codex',
  toolVersion: '0.1.0',
  budgetSeconds: 600,
};

const REQUEST = {
  target: 'work:1.0',
  tool: 'codex',
  toolVersion: '0.1.0',
  watchdogBudgetSeconds: 600,
};

describe('initialState', () => {
  it('a new terminal: nothing known yet, waiting, its budget not yet running', () => {
    expect(initialState(BASE)).toEqual({
      terminalId: 'a',
      target: 'work:1.0',
      tool: 'codex',
      toolVersion: '0.1.0',
      toolVersionVerified: false,
      t: 12,
      diagnostics: {
        availability: 'unknown',
        transport: null,
        process: null,
        parse: null,
        error: null,
      },
      surface: {
        availability: 'unknown',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: 'unknown',
        acceptingInput: 'unknown',
        editingInput: 'unknown',
        readyPosture: 'unknown',
        blockedPrompt: null,
        question: null,
        activeReasons: [],
      },
      turn: { phase: 'unknown', since: null, current: null },
      lastTurn: { result: 'none', source: 'none', turnId: null, at: null },
      readiness: { status: 'waiting', since: null },
      completion: null,
      chatContext: { state: 'unknown' },
      stability: { stable: false, stableForSeconds: 0 },
      watchdog: { state: 'disabled', sessionStartedAt: null, budgetSeconds: 600 },
      session: { status: 'running', stopReasonCode: null },
    });
  });

  it('a re-adopted terminal shows the last turn the journal remembers', () => {
    const restore: RestoreFacts = {
      request: REQUEST,
      lastTurn: { result: 'known_failure', source: 'surface_inference', turnId: 'turn-6', at: 9 },
      openTurn: null,
      watchdog: null,
    };
    const s = initialState({ ...BASE, restore });
    expect(s.lastTurn).toEqual({
      result: 'known_failure',
      source: 'surface_inference',
      turnId: 'turn-6',
      at: 9,
    });
    expect(s.turn).toEqual({ phase: 'unknown', since: null, current: null });
  });

  it('a turn under way with evidence of its own is active since the attach; one without is not shown', () => {
    const turn = { id: 'turn-7', source: 'explicit_input', startedAt: 10 } as const;
    const open = (hadEvidence: boolean): RestoreFacts => ({
      request: REQUEST,
      lastTurn: null,
      openTurn: { turn: { ...turn }, hadEvidence },
      watchdog: null,
    });
    const withEvidence = open(true);
    const s = initialState({ ...BASE, restore: withEvidence });
    expect(s.turn).toEqual({ phase: 'active', since: 12, current: turn });
    // The state holds its own copy, not the journal's facts.
    withEvidence.openTurn!.turn.id = 'changed';
    expect(s.turn.current?.id).toBe('turn-7');
    expect(initialState({ ...BASE, restore: open(false) }).turn).toEqual({
      phase: 'unknown',
      since: null,
      current: null,
    });
    expect(initialState({ ...BASE, restore: null }).turn.phase).toBe('unknown');
  });
});

describe('changedFields', () => {
  const a = initialState(BASE);
  const edit = (f: (s: TerminalState) => void): TerminalState => {
    const s = structuredClone(a);
    f(s);
    return s;
  };

  it('names each changed leaf by its dotted path, with its new value', () => {
    const b = edit((s) => {
      s.readiness.status = 'ready';
      s.diagnostics.error = { kind: 'x', message: 'y' };
      s.tool = 'claude_code';
    });
    expect(changedFields(a, b)).toEqual({
      'readiness.status': 'ready',
      'diagnostics.error': { kind: 'x', message: 'y' },
      tool: 'claude_code',
    });
    expect(changedFields(b, a)).toEqual({
      'readiness.status': 'waiting',
      'diagnostics.error': null,
      tool: 'codex',
    });
  });

  it('an object in place of null is one change, with the whole object', () => {
    const b = edit((s) => {
      s.completion = {
        turnId: 'turn-1',
        status: 'waiting',
        sawWorking: false,
        sawProjectionChange: false,
      };
    });
    expect(changedFields(a, b)).toEqual({
      completion: {
        turnId: 'turn-1',
        status: 'waiting',
        sawWorking: false,
        sawProjectionChange: false,
      },
    });
  });

  it('lists are compared whole, and equal lists are no change', () => {
    const b = edit((s) => (s.surface.activeReasons = ['spinner']));
    expect(changedFields(a, b)).toEqual({ 'surface.activeReasons': ['spinner'] });
    const c = edit((s) => (s.surface.activeReasons = []));
    expect(changedFields(a, c)).toEqual({});
  });

  it('a field that appears or goes away is a change; gone reads as null', () => {
    const withPayload = edit((s) => {
      s.completion = {
        turnId: 'turn-1',
        status: 'completed',
        sawWorking: true,
        sawProjectionChange: true,
        payload: { ok: 1 },
      };
    });
    const without = structuredClone(withPayload);
    delete without.completion!.payload;
    expect(changedFields(without, withPayload)).toEqual({ 'completion.payload': { ok: 1 } });
    expect(changedFields(withPayload, without)).toEqual({ 'completion.payload': null });
  });

  it('the clock alone is no change: the time and how long the surface held still', () => {
    const b = edit((s) => {
      s.t = 99;
      s.stability.stableForSeconds = 40;
    });
    expect(changedFields(a, b)).toEqual({});
    expect(sameState(a, b)).toBe(true);
    const c = edit((s) => (s.stability.stable = true));
    expect(changedFields(a, c)).toEqual({ 'stability.stable': true });
    expect(sameState(a, c)).toBe(false);
  });
});
