/**
 * One poll through the pipeline: what the probe says decides whether the screen is read at all
 * (statecharts.md §6: transport first, then the process, then the parser), and what the charts
 * are told when the screen cannot be read.
 */
import { describe, expect, it } from 'vitest';
import { lineProfile, linePipeline, UP } from './internal/line-profile.js';
import { UNKNOWN_SURFACE } from './internal/unknown-surface.js';

/** The line profile, counting the screens it is asked to read. */
function countingProfile(over: Parameters<typeof lineProfile>[0] = {}) {
  const calls: string[] = [];
  const base = lineProfile(over);
  return {
    calls,
    profile: {
      ...base,
      parse: (screen: { text: string }) => {
        calls.push(screen.text);
        return base.parse(screen);
      },
    },
  };
}

describe('what the probe lets the parser read', () => {
  it('without tmux the screen is not read; the probe error is kept', () => {
    const { calls, profile } = countingProfile();
    const { p, frame, ofKind } = linePipeline({ profile });
    const error = { kind: 'tmux_timeout', message: 'no answer' };
    frame(0, 'ready', { transport: 'probe_error', process: 'unknown', error });
    expect(calls).toEqual([]);
    expect(p.state.diagnostics).toEqual({
      availability: 'error',
      transport: 'probe_error',
      process: 'unknown',
      parse: 'transport_unavailable',
      error,
    });
    expect(p.state.readiness.status).toBe('unknown');
    return ofKind('state').then((s) =>
      expect(s[0]!.evidence).toMatchObject({ detector: 'lines', rule: 'transport_unavailable' }),
    );
  });

  it('with the TUI down the screen is not read: the pane shows what it left behind', async () => {
    const { calls, profile } = countingProfile();
    const { p, frame, ofKind } = linePipeline({ profile });
    frame(0, 'ready', { transport: 'tmux_up', process: 'tui_down' });
    expect(calls).toEqual([]);
    expect(p.state.diagnostics).toMatchObject({
      availability: 'tui_down',
      parse: 'skipped_tui_down',
      error: null,
    });
    expect(p.state.readiness.status).toBe('failed');
    expect(p.state.surface).toEqual(UNKNOWN_SURFACE);
    expect((await ofKind('state'))[0]!.evidence).toMatchObject({
      detector: 'lines',
      rule: 'skipped_tui_down',
    });
  });

  it('an unsupported tool is read for the record only: the surface is unsupported, readiness failed', async () => {
    const { calls, profile } = countingProfile();
    const { p, frame, ofKind } = linePipeline({ profile });
    frame(0, 'ready', { transport: 'tmux_up', process: 'unsupported_tool' });
    expect(calls).toEqual(['ready']);
    expect(p.state.diagnostics).toMatchObject({
      availability: 'unknown',
      parse: 'unsupported_tool',
    });
    expect(p.state.readiness.status).toBe('failed');
    expect(p.state.surface).toEqual(UNKNOWN_SURFACE);
    expect(p.state.turn.phase).toBe('unknown');
    expect((await ofKind('state'))[0]!.evidence).toMatchObject({
      detector: 'lines@1',
      rule: 'ready',
    });
  });

  it('a profile that names no process is an unsupported tool whatever the probe says', () => {
    const { calls, profile } = countingProfile({ processNames: [] });
    const { p, frame } = linePipeline({ profile });
    frame(0, 'ready', UP);
    expect(calls).toEqual(['ready']);
    expect(p.state.diagnostics.parse).toBe('unsupported_tool');
    expect(p.state.readiness.status).toBe('failed');
  });

  it('a probe error is an error also for a tool no process names: readiness unknown, not failed', () => {
    const { p, frame } = linePipeline({ profile: lineProfile({ processNames: [] }) });
    frame(0, 'ready', { transport: 'tmux_up', process: 'probe_error' });
    expect(p.state.diagnostics).toMatchObject({ availability: 'error', parse: 'unsupported_tool' });
    expect(p.state.readiness.status).toBe('unknown');
  });

  it('an unsupported tool whose parser throws is still only unsupported', async () => {
    const { p, frame, ofKind } = linePipeline();
    frame(0, 'throw', { transport: 'tmux_up', process: 'unsupported_tool' });
    expect(p.state.diagnostics).toMatchObject({ parse: 'unsupported_tool', error: null });
    expect(p.state.readiness.status).toBe('failed');
    expect((await ofKind('state'))[0]!.evidence).toMatchObject({
      detector: 'lines',
      rule: 'unsupported_tool',
    });
  });

  it('a parser that throws is a parse error with its message', async () => {
    const { p, frame, ofKind } = linePipeline();
    frame(0, 'throw');
    expect(p.state.diagnostics).toEqual({
      availability: 'error',
      transport: 'tmux_up',
      process: 'tui_up',
      parse: 'parse_error',
      error: { kind: 'parse_error', message: 'cannot read this' },
    });
    expect(p.state.readiness.status).toBe('unknown');
    expect((await ofKind('state'))[0]!.evidence).toMatchObject({
      detector: 'lines',
      rule: 'parse_error',
    });
    frame(1, 'throw-string');
    expect(p.state.diagnostics.error).toEqual({
      kind: 'parse_error',
      message: 'cannot read this either',
    });
  });

  it('a parsed frame carries no error, and one probe error does not outlive its poll', () => {
    const { p, frame } = linePipeline();
    frame(0, 'ready', { ...UP, error: { kind: 'slow', message: 'late' } });
    expect(p.state.diagnostics.error).toEqual({ kind: 'slow', message: 'late' });
    frame(1, 'ready');
    expect(p.state.diagnostics.error).toBeNull();
  });
});

describe('a poll without a capture', () => {
  it('with tmux up it is a probe error, without tmux the transport is unavailable', () => {
    const { p } = linePipeline();
    p.probe(0, { transport: 'tmux_up', process: 'probe_error' });
    expect(p.state.diagnostics).toMatchObject({
      availability: 'error',
      parse: 'probe_error',
      error: null,
    });
    p.probe(1, { transport: 'tmux_missing', process: 'unknown' });
    expect(p.state.diagnostics).toMatchObject({
      availability: 'unavailable',
      parse: 'transport_unavailable',
    });
    expect(p.state.readiness.status).toBe('failed');
  });

  it('keeps the parse outcome it is given, and its error', () => {
    const { p } = linePipeline();
    const error = { kind: 'exit', message: 'gone' };
    p.probe(0, { transport: 'tmux_up', process: 'tui_down', parse: 'skipped_tui_down', error });
    expect(p.state.diagnostics).toEqual({
      availability: 'tui_down',
      transport: 'tmux_up',
      process: 'tui_down',
      parse: 'skipped_tui_down',
      error,
    });
  });

  it('a parsed poll with no screen to show is not available to the turn: its phase is lost', () => {
    const { p, frame } = linePipeline();
    frame(0, 'ready');
    expect(p.state.turn.phase).toBe('ready');
    p.probe(1, { ...UP, parse: 'parsed' });
    expect(p.state.diagnostics.availability).toBe('available');
    expect(p.state.turn.phase).toBe('unknown');
    expect(p.state.readiness.status).toBe('unknown');
  });

  it('a parsed poll with no screen during a turn: the turn cannot be seen, so its phase is lost', () => {
    const { p, frame } = linePipeline();
    frame(0, 'ready');
    p.submit(1);
    frame(2, 'working');
    expect(p.state.turn.phase).toBe('active');
    p.probe(3, { ...UP, parse: 'parsed' });
    expect(p.state.turn.phase).toBe('unknown');
  });

  it('a poll that cannot be read keeps the transcript as last seen: a turn sees no change in it', () => {
    const { p, frame } = linePipeline();
    frame(0, 'hello\nready');
    p.submit(1);
    p.probe(2, { transport: 'tmux_up', process: 'probe_error' });
    p.probe(2.5, { transport: 'tmux_up', process: 'tui_down', parse: 'skipped_tui_down' });
    frame(3, 'hello\nready');
    expect(p.state.completion).toMatchObject({ sawWorking: false, sawProjectionChange: false });
  });

  it('a poll that cannot be read is no evidence of a turn: an old reply still on screen is not its success', () => {
    for (const probeAt of [0.5, 1.5]) {
      const { p, frame, at } = linePipeline();
      frame(0, 'hello\nreplied');
      if (probeAt < 1) p.probe(probeAt, { transport: 'tmux_up', process: 'probe_error' });
      p.submit(1);
      if (probeAt > 1) p.probe(probeAt, { transport: 'tmux_up', process: 'probe_error' });
      frame(2, 'hello\nreplied');
      at(10);
      expect(p.state.lastTurn.result, `probe at ${probeAt}`).toBe('none');
      expect(p.state.turn).toMatchObject({ phase: 'active', current: { id: 'turn-1' } });
    }
  });

  it('a turn sees every later change of its transcript, also after a poll that could not be read', () => {
    const { p, frame } = linePipeline();
    frame(0, 'hello\nready');
    p.submit(1);
    frame(2, 'hello\nready');
    frame(3, 'hello\nready');
    expect(p.state.completion).toMatchObject({ sawProjectionChange: false });
    frame(4, 'hello\nreply\nready');
    expect(p.state.completion).toMatchObject({ sawProjectionChange: true });

    const after = linePipeline();
    after.frame(0, 'hello\nready');
    after.p.submit(1);
    after.p.probe(2, { transport: 'tmux_up', process: 'probe_error' });
    after.frame(3, 'hello\nreply\nready');
    expect(after.p.state.completion).toMatchObject({ sawProjectionChange: true });
  });

  it('a terminal never read has an empty transcript: polls that cannot be read do not change it', () => {
    const { p, at } = linePipeline();
    p.submit(1);
    p.probe(2, { transport: 'tmux_up', process: 'probe_error' });
    p.probe(3, { transport: 'tmux_missing', process: 'unknown' });
    at(10);
    expect(p.state.completion).toMatchObject({ sawWorking: false, sawProjectionChange: false });
    expect(p.state.lastTurn.result).toBe('none');
  });

  it('leaves the latest capture and the projection as they were; the surface goes unknown', () => {
    const { p, frame } = linePipeline();
    expect(p.screen).toBeNull();
    expect(p.projectionText).toBe('');
    frame(0, 'hello\nready');
    expect(p.screen).toEqual({ text: 'hello\nready', t: 0 });
    expect(p.projectionText).toBe('hello');
    p.probe(1, { transport: 'tmux_missing', process: 'unknown' });
    expect(p.screen).toEqual({ text: 'hello\nready', t: 0 });
    expect(p.projectionText).toBe('hello');
    expect(p.state.surface).toEqual(UNKNOWN_SURFACE);
    expect(p.state.chatContext.state).toBe('unknown');
  });

  it('the projection a submit compares against survives a poll without a capture', () => {
    const { p, frame } = linePipeline();
    frame(0, 'hello\nready');
    p.probe(1, { ...UP, process: 'probe_error' });
    p.submit(2);
    frame(3, 'hello\nready');
    // The transcript is what it was when the prompt was submitted: no change seen.
    expect(p.state.completion).toMatchObject({ sawProjectionChange: false });
  });
});
