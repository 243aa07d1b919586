/**
 * Replay of terminal recordings (contracts.md §2): a recording is validated line by line (a
 * header first, time never going back, unknown line types skipped), played into the same
 * pipeline live supervision uses on virtual time, and each public-state change is printed,
 * from the session's first poll on; everything valid before a bad line is still printed.
 */
import { describe, expect, it, vi } from 'vitest';
import { PanewardError } from '../../src/errors.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
  replayRecording,
} from '../../src/replay/replay.js';
import { sameState } from '../../src/terminal/state.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';

const NORMAL_TURN = 'test/fixtures/claude_code/normal-turn.jsonl';
const SESSION_KILLED = 'test/fixtures/gemini_cli/session-killed.jsonl';

/** The lines of a recording, numbered again from 1 in their new order. */
const renumber = (texts: string[]): Array<[number, string]> => texts.map((t, i) => [i + 1, t]);
const texts = (file: string) => readJsonLines(file).map(([, text]) => text);
const t = (text: string) => (JSON.parse(text) as { t: number }).t;

function replayed(lines: Array<[number, string]>, options = {}) {
  const states: TerminalState[] = [];
  const final = replayRecording(lines, (s) => states.push(s), options);
  return { states, final };
}

function failure(run: () => unknown): PanewardError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PanewardError);
    expect((err as PanewardError).code).toBe('invalid_recording');
    return err as PanewardError;
  }
  throw new Error('expected the recording to be refused');
}

describe('parseRecording', () => {
  it('a header, then the polls and inputs in time order', () => {
    const rec = parseRecording(readJsonLines(NORMAL_TURN));
    expect(rec.header).toMatchObject({
      type: 'header',
      version: 1,
      tool: 'claude_code',
      toolVersion: '2.1.330',
    });
    expect(rec.lines).toHaveLength(34);
    expect(rec.lines.filter((l) => l.type === 'input').map((l) => l.t)).toEqual([2.146]);
    expect(rec.lines[0]).toMatchObject({
      type: 'frame',
      t: 0.034,
      transport: 'tmux_up',
      process: 'tui_up',
    });
  });

  it('an empty recording is refused', () => {
    expect(failure(() => parseRecording([])).message).toMatch(/the recording is empty/);
  });

  it('a recording that does not start with a header is refused, naming the line', () => {
    const lines = texts(NORMAL_TURN).slice(1);
    expect(failure(() => parseRecording(renumber(lines))).message).toMatch(/^line 1: /);
  });

  it('skips lines of a type it does not know, whatever they hold', () => {
    const lines = texts(NORMAL_TURN);
    const extra = [lines[0]!, lines[1]!, '{"type":"marker","t":0}', lines[2]!, ...lines.slice(3)];
    expect(parseRecording(renumber(extra)).lines).toHaveLength(34);
  });

  it('refuses a line that is not JSON, or has no type', () => {
    const lines = texts(NORMAL_TURN);
    expect(failure(() => parseRecording(renumber([lines[0]!, '{not json']))).message).toBe(
      'line 2: not valid JSON',
    );
    const untyped = lines[1]!.replace('"type":"frame",', '');
    expect(failure(() => parseRecording(renumber([lines[0]!, untyped]))).message).toMatch(
      /^line 2: /,
    );
  });

  it('a type that is not a name is no unknown type: the line is refused', () => {
    const lines = texts(NORMAL_TURN);
    const numbered = lines[1]!.replace('"type":"frame"', '"type":5');
    expect(failure(() => parseRecording(renumber([lines[0]!, numbered]))).message).toMatch(
      /^line 2: /,
    );
  });

  it('refuses a second header', () => {
    const lines = texts(NORMAL_TURN);
    expect(failure(() => parseRecording(renumber([lines[0]!, lines[1]!, lines[0]!]))).message).toBe(
      'line 3: field `type`: a second header',
    );
  });

  it('refuses time going back; the same time twice is fine', () => {
    const lines = texts(NORMAL_TURN);
    const [h, a, b] = [lines[0]!, lines[1]!, lines[2]!];
    expect(failure(() => parseRecording(renumber([h, b, a]))).message).toBe(
      `line 3: field \`t\`: time went backwards (${t(a)} < ${t(b)})`,
    );
    expect(parseRecording(renumber([h, a, a])).lines).toHaveLength(2);
  });
});

describe('replayRecording', () => {
  it('prints each change from the first poll on, and returns the state at the end', () => {
    const lines = readJsonLines(NORMAL_TURN);
    const { states, final } = replayed(lines);
    expect(states[0]!.t).toBe(0.034);
    for (let i = 1; i < states.length; i++) {
      expect(states[i]!.t).toBeGreaterThanOrEqual(states[i - 1]!.t);
      expect(sameState(states[i - 1]!, states[i]!)).toBe(false);
    }
    expect(final).toEqual(states.at(-1));
    expect(final).toMatchObject({
      terminalId: 'replay',
      tool: 'claude_code',
      toolVersion: '2.1.330',
      lastTurn: { result: 'success', source: 'explicit_input', turnId: 'turn-1' },
    });
    // The input arms an explicit turn at its time.
    const armed = states.find((s) => s.turn.current?.id === 'turn-1')!;
    expect(armed.turn.current).toEqual({
      id: 'turn-1',
      source: 'explicit_input',
      startedAt: 2.146,
    });
  });

  it('plays out the windows due after the last line', () => {
    const lines = texts(NORMAL_TURN);
    const last = lines.at(-1)!;
    const { states } = replayed(renumber([lines[0]!, last]));
    expect(states.map((s) => [s.t, s.stability.stable])).toEqual([
      [t(last), false],
      [t(last) + 1, true],
    ]);
  });

  it('takes the terminal id and the windows it is given', () => {
    const lines = texts(NORMAL_TURN);
    const last = lines.at(-1)!;
    const { states } = replayed(renumber([lines[0]!, last]), {
      terminalId: 'pane-7',
      config: { stabilitySeconds: 0.5 },
    });
    expect(states.map((s) => [s.terminalId, s.t, s.stability.stable])).toEqual([
      ['pane-7', t(last), false],
      ['pane-7', t(last) + 0.5, true],
    ]);
  });

  it('arms the watchdog with the session budget it is given, from the first poll; none without', () => {
    const lines = texts(NORMAL_TURN);
    const first = t(lines[1]!);
    const guarded = replayed(renumber(lines), { config: { sessionWallClockSeconds: 2 } });
    const fired = guarded.states.find((s) => s.watchdog.state === 'fired')!;
    expect(fired.t).toBe(first + 2);
    expect(fired.session).toEqual({
      status: 'blocked',
      stopReasonCode: 'watchdog_wall_clock_exceeded',
    });
    expect(guarded.states[0]!.watchdog).toEqual({
      state: 'armed',
      sessionStartedAt: first,
      budgetSeconds: 2,
    });
    const plain = replayed(renumber(lines));
    expect(plain.states.every((s) => s.watchdog.state === 'disabled')).toBe(true);
  });

  it('polls without a capture are played as probes', () => {
    const { final } = replayed(readJsonLines(SESSION_KILLED));
    expect(final!.diagnostics).toMatchObject({
      availability: 'unavailable',
      transport: 'tmux_missing',
      parse: 'transport_unavailable',
    });
    expect(final!.readiness.status).toBe('failed');
  });

  it('prints every state before a bad line, then refuses the line', () => {
    const lines = texts(NORMAL_TURN);
    const bad = lines.slice(0, 12);
    bad.push(lines[3]!);
    const states: TerminalState[] = [];
    const err = failure(() => replayRecording(renumber(bad), (s) => states.push(s)));
    expect(err.message).toMatch(/^line 13: field `t`: time went backwards/);
    expect(states.length).toBeGreaterThan(0);
    // The input (line 11) was played before the bad line.
    expect(states.at(-1)!.turn.current?.id).toBe('turn-1');
  });

  it('refuses a recording without a valid header and prints nothing', () => {
    const printed: unknown[] = [];
    const lines = texts(NORMAL_TURN).slice(1);
    failure(() => replayRecording(renumber(lines), (s) => printed.push(s)));
    failure(() => replayRecording([], (s) => printed.push(s)));
    expect(printed).toEqual([]);
  });

  it('releases the pipeline it played into, also when it refuses a line', () => {
    const dispose = vi.spyOn(TerminalPipeline.prototype, 'dispose');
    try {
      replayed(readJsonLines(NORMAL_TURN));
      expect(dispose).toHaveBeenCalledTimes(1);
      const lines = texts(NORMAL_TURN);
      failure(() => replayRecording(renumber([lines[0]!, lines[2]!, lines[1]!]), () => {}));
      expect(dispose).toHaveBeenCalledTimes(2);
    } finally {
      dispose.mockRestore();
    }
  });

  it('is deterministic', () => {
    const a = replayed(readJsonLines(NORMAL_TURN)).states;
    const b = replayed(readJsonLines(NORMAL_TURN)).states;
    expect(b).toEqual(a);
  });
});

describe('playRecording', () => {
  it('starts the session at the first poll, before it is played, and hands each frame to the hook', () => {
    const rec = parseRecording(readJsonLines(NORMAL_TURN));
    const { pipeline, clock } = pipelineFor(rec, { config: { stabilitySeconds: 2 } });
    expect(pipeline.kernel.config.stabilitySeconds).toBe(2);
    expect(pipeline.state).toMatchObject({
      terminalId: 'replay',
      tool: 'claude_code',
      toolVersion: '2.1.330',
    });
    const seen: Array<[string, unknown]> = [];
    let frames = 0;
    playRecording(rec, pipeline, clock, {
      onFirstLine: () => seen.push(['first', pipeline.state.diagnostics.availability]),
      frame: (run) => {
        frames += 1;
        if (frames === 1) seen.push(['frame', pipeline.state.readiness.since]);
        run();
      },
    });
    expect(seen).toEqual([
      ['first', 'unknown'],
      ['frame', 0.034],
    ]);
    expect(frames).toBe(33);
    expect(pipeline.state.stability.stable).toBe(true);
    pipeline.dispose();
  });

  it('a frame the hook does not run is not played', () => {
    const rec = parseRecording(readJsonLines(NORMAL_TURN));
    const { pipeline, clock } = pipelineFor(rec);
    playRecording(rec, pipeline, clock, { frame: () => {} });
    expect(pipeline.state.diagnostics.availability).toBe('unknown');
    expect(pipeline.state.turn.current?.id).toBe('turn-1');
    pipeline.dispose();
  });
});
