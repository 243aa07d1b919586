/**
 * What the public state (contracts.md §3) shows of a poll, how stable it stands, and what a
 * completion observer is asked when the screen cannot be read.
 */
import { describe, expect, it } from 'vitest';
import { linePipeline, UP } from './internal/line-profile.js';
import { UNKNOWN_SURFACE } from './internal/unknown-surface.js';

describe('the public surface', () => {
  it('shows the signals of the latest readable frame', () => {
    const { p, frame } = linePipeline();
    frame(0, 'working');
    expect(p.state.surface).toEqual({
      availability: 'supported',
      businessState: 'working',
      inputMode: 'closed',
      uiContext: 'normal_prompt',
      acceptingInput: 'no',
      editingInput: 'no',
      readyPosture: 'no',
      blockedPrompt: null,
      question: null,
      activeReasons: ['spinner'],
    });
    frame(1, 'permission');
    expect(p.state.surface).toMatchObject({
      businessState: 'awaiting_operator',
      blockedPrompt: 'tool_permission',
    });
    expect(p.state.readiness.status).toBe('blocked');
    expect(p.state.chatContext.state).toBe('current');
  });

  it('names the terminal, its pane and its tool; no pane when attached without one', () => {
    expect(linePipeline({ target: 'work:1.0' }).p.state).toMatchObject({
      terminalId: 't1',
      target: 'work:1.0',
      tool: 'lines',
      toolVersion: '1.0.0',
    });
    expect(linePipeline().p.state.target).toBeNull();
  });

  it('before any poll: nothing known, nothing stable, no session watched', () => {
    const { p } = linePipeline({ config: { stabilitySeconds: 0 } });
    expect(p.state).toEqual({
      terminalId: 't1',
      target: null,
      tool: 'lines',
      toolVersion: '1.0.0',
      // A tool with no verified release: no claim either way.
      toolVersionVerified: null,
      t: 0,
      diagnostics: {
        availability: 'unknown',
        transport: null,
        process: null,
        parse: null,
        error: null,
      },
      surface: UNKNOWN_SURFACE,
      turn: { phase: 'unknown', since: null, current: null },
      lastTurn: { result: 'none', source: 'none', turnId: null, at: null },
      readiness: { status: 'waiting', since: null },
      completion: null,
      chatContext: { state: 'unknown' },
      stability: { stable: false, stableForSeconds: 0 },
      watchdog: { state: 'disabled', sessionStartedAt: null, budgetSeconds: 0 },
      session: { status: 'running', stopReasonCode: null },
    });
  });

  it('readiness and the phase say since when they hold; the first state sets both', () => {
    const { p, frame, at } = linePipeline();
    p.startSession(5);
    expect(p.state.readiness).toEqual({ status: 'waiting', since: 5 });
    // No surface seen yet: it has held still for no time at all.
    expect(p.state.stability).toEqual({ stable: false, stableForSeconds: 0 });
    expect(p.state.turn).toMatchObject({ phase: 'unknown', since: 5 });
    frame(6, 'ready');
    expect(p.state.readiness).toEqual({ status: 'ready', since: 6 });
    expect(p.state.turn).toMatchObject({ phase: 'ready', since: 6 });
    at(8);
    frame(9, 'draft');
    // Still ready to type, but no longer an idle prompt for the turn.
    expect(p.state.readiness).toEqual({ status: 'ready', since: 6 });
    expect(p.state.turn).toMatchObject({ phase: 'unknown', since: 9 });
    frame(10, 'working');
    expect(p.state.readiness).toEqual({ status: 'waiting', since: 10 });
    expect(p.state.turn).toMatchObject({ phase: 'active', since: 10 });
  });
});

describe('surface stability', () => {
  it('holds while the surface keeps its shape; trailing blanks of the transcript are no change', () => {
    const { p, frame, at } = linePipeline();
    frame(0, 'hello\nready');
    frame(0.5, 'hello   \nready');
    at(1);
    expect(p.state.stability).toEqual({ stable: true, stableForSeconds: 1 });
  });

  it('restarts when the transcript or the surface changes, and turns stable a window later', () => {
    const { p, frame, at } = linePipeline();
    frame(0, 'hello\nready');
    at(2);
    expect(p.state.stability.stable).toBe(true);
    frame(3, 'hello there\nready');
    expect(p.state.stability).toEqual({ stable: false, stableForSeconds: 0 });
    at(3.5);
    expect(p.state.stability.stable).toBe(false);
    at(4);
    expect(p.state.stability).toEqual({ stable: true, stableForSeconds: 1 });
    frame(5, 'hello there\nworking');
    expect(p.state.stability).toEqual({ stable: false, stableForSeconds: 0 });
  });

  it('a pane that can no longer be read is a change of surface too', () => {
    const { p, frame, at } = linePipeline();
    frame(0, 'hello\nready');
    at(2);
    p.probe(3, { transport: 'tmux_missing', process: 'unknown' });
    expect(p.state.stability).toEqual({ stable: false, stableForSeconds: 0 });
  });
});

describe('what a completion observer is asked when the screen cannot be read', () => {
  it('during a turn with evidence it is asked with why the surface is unknown; an unsupported surface fails the turn unasked', () => {
    const asked: Array<[string, string]> = [];
    const { p, frame } = linePipeline({
      observer: (o) => {
        asked.push([o.availability, o.uiContext]);
        return null;
      },
    });
    frame(0, 'ready');
    p.submit(1);
    frame(2, 'you: hi\nworking');
    expect(asked).toEqual([['supported', 'normal_prompt']]);
    const error = { kind: 'tmux_timeout', message: 'no answer' };
    frame(3, 'you: hi\nworking', { transport: 'probe_error', process: 'unknown', error });
    expect(asked.at(-1)).toEqual(['unknown', 'probe_error']);
    // Probed, but no capture came back: nothing is known of the surface.
    p.probe(4, { ...UP, parse: 'parsed' });
    expect(p.state.diagnostics.availability).toBe('available');
    expect(asked.at(-1)).toEqual(['unknown', 'unknown']);
    frame(5, 'you: hi\nworking', { transport: 'probe_error', process: 'unknown', error });
    const before = asked.length;
    frame(6, 'you: hi\nworking', { transport: 'tmux_up', process: 'unsupported_tool' });
    expect(p.state.diagnostics.availability).toBe('unknown');
    expect(p.state.completion?.status).toBe('failed');
    expect(asked).toHaveLength(before);
  });
});
