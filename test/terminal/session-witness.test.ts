/**
 * Which completion authority a terminal runs under (docs/witness.md), tool by tool, and when a
 * live terminal looks for its session record: each time a new turn starts, and never after it
 * stopped.
 */
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hookEndingsOf } from '../../src/hooks/events.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { SessionObserver } from '../../src/sessions/observer.js';
import {
  ClaimRegistry,
  startTerminalWitness,
  witnessConfigFor,
} from '../../src/terminal/session-witness.js';
import { initialState } from '../../src/terminal/state.js';
import { DEFAULT_WITNESS_WINDOW_SECONDS } from '../../src/terminal/witness.js';

const W = DEFAULT_WITNESS_WINDOW_SECONDS;

describe('witnessConfigFor', () => {
  it('a tool with a record reader weighs it under `both` unless asked otherwise', () => {
    expect(witnessConfigFor('claude_code', undefined)).toEqual({
      authority: 'both',
      windowSeconds: W,
      hookEndings: hookEndingsOf('claude_code'),
    });
    expect(witnessConfigFor('claude_code', 'markers')).toMatchObject({ authority: 'markers' });
    expect(witnessConfigFor('claude_code', 'surface')).toBeUndefined();
  });

  it('a reader that cannot tell every ending names the ones it can', () => {
    expect(witnessConfigFor('gemini_cli', undefined)).toEqual({
      authority: 'both',
      windowSeconds: W,
      endings: ['interrupted', 'known_failure'],
    });
  });

  it('a tool with hooks and no reader: the record tells nothing', () => {
    const hooks = hookEndingsOf('opencode');
    expect(hooks).toBeDefined();
    expect(witnessConfigFor('opencode', undefined)).toEqual({
      authority: 'both',
      windowSeconds: W,
      endings: [],
      hookEndings: hooks,
    });
  });

  it('a tool with neither has no witness, unless completion observers are given', () => {
    expect(witnessConfigFor('pi', undefined)).toBeUndefined();
    expect(witnessConfigFor('pi', 'markers')).toBeUndefined();
    expect(witnessConfigFor('pi', undefined, true)).toEqual({
      authority: 'both',
      windowSeconds: W,
      endings: [],
    });
    expect(witnessConfigFor('pi', 'surface', true)).toBeUndefined();
  });
});

describe('startTerminalWitness', () => {
  afterEach(() => vi.restoreAllMocks());

  const state = (turnId: string | null): TerminalState => {
    const s = initialState({
      t: 1,
      terminalId: 't1',
      target: null,
      tool: 'claude_code',
      toolVersion: null,
      budgetSeconds: 0,
    });
    return {
      ...s,
      turn: {
        ...s.turn,
        current: turnId === null ? null : { id: turnId, source: 'explicit_input', startedAt: 1 },
      },
    };
  };

  function started(tool: string) {
    const locate = vi.spyOn(SessionObserver.prototype, 'locate').mockResolvedValue(undefined);
    const stop = vi.spyOn(SessionObserver.prototype, 'stop');
    const states = new Subject<TerminalState>();
    const end = startTerminalWitness({
      terminalId: 't1',
      tool,
      processNames: ['claude'],
      claims: new ClaimRegistry(),
      panePid: () => null,
      state$: states,
      report: () => undefined,
    });
    return { locate, stop, states, end };
  }

  it('looks for the record once per new turn, and not after it stopped', () => {
    const w = started('claude_code');
    w.states.next(state(null));
    expect(w.locate).not.toHaveBeenCalled();
    w.states.next(state('turn-1'));
    expect(w.locate).toHaveBeenCalledTimes(1);
    w.states.next(state('turn-1'));
    expect(w.locate).toHaveBeenCalledTimes(1);
    w.states.next(state(null));
    w.states.next(state('turn-1'));
    // The same turn seen again after none (a turn reopened): looked for again.
    expect(w.locate).toHaveBeenCalledTimes(2);
    w.states.next(state('turn-2'));
    expect(w.locate).toHaveBeenCalledTimes(3);
    expect(w.stop).not.toHaveBeenCalled();
    w.end();
    expect(w.stop).toHaveBeenCalledTimes(1);
    w.states.next(state('turn-3'));
    expect(w.locate).toHaveBeenCalledTimes(3);
    expect(w.states.observed).toBe(false);
  });

  it('a tool with no record reader follows nothing', () => {
    const w = started('pi');
    expect(w.states.observed).toBe(false);
    w.states.next(state('turn-1'));
    expect(w.locate).not.toHaveBeenCalled();
    w.end();
    expect(w.stop).not.toHaveBeenCalled();
  });
});
