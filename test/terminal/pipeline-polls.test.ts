/**
 * One poll through the pipeline: what the probe says decides whether the screen is read at all
 * (statecharts.md §6: transport first, then the process, then the parser), what the charts are
 * told when the screen cannot be read, and what the public state (contracts.md §3) shows of it.
 */
import { describe, expect, it } from 'vitest';
import { lineProfile, linePipeline, UP } from './internal/line-profile.js';

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

const UNKNOWN_SURFACE = {
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
};

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
