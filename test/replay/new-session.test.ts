/**
 * opencode and Kilo open a new session when the first prompt is submitted from the start
 * screen: the logo goes, and the session view is drawn empty (an idle-looking prompt, no working
 * bar) until the prompt's block comes back from the CLI's server. On a loaded machine Kilo 7.7.7
 * stays on that empty view for seconds while it prepares the session. That step is not the
 * turn's reply: the turn must stay open through it, and end with the reply's own outcome.
 *
 * Built from real recorded frames: the recording's own empty-session frame, held longer than
 * the stale-active window by moving every later line in time.
 */
import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';

interface Line {
  type: string;
  t: number;
  text?: string;
}

const load = (tool: string, name: string): Line[] =>
  readJsonLines(`test/fixtures/${tool}/${name}.jsonl`).map(([, text]) => JSON.parse(text) as Line);

/** Longer than settle (1 s) + the stale-active margin (3 s), as seen live under load. */
const HOLD_SECONDS = 8;

/** The first frame after the submit that shows neither the logo nor the prompt's text. */
function emptySessionIndex(lines: readonly Line[], logo: RegExp, prompt: string): number {
  const submit = lines.findIndex((l) => l.type === 'input');
  const i = lines.findIndex(
    (l, k) =>
      k > submit && l.type === 'frame' && !logo.test(l.text ?? '') && !l.text!.includes(prompt),
  );
  if (submit < 0 || i < 0) throw new Error('no empty session frame after the submit');
  return i;
}

function replayHeld(tool: string, name: string, logo: RegExp, prompt: string) {
  const lines = load(tool, name);
  const at = emptySessionIndex(lines, logo, prompt);
  const held = lines.map((l, k) =>
    k > at ? { ...l, t: Math.round((l.t + HOLD_SECONDS) * 1000) / 1000 } : l,
  );
  const states: TerminalState[] = [];
  replayRecording(
    held.map((l, k) => [k + 1, JSON.stringify(l)]),
    (s) => states.push(s),
  );
  return { frame: lines[at]!, states };
}

describe('the new session drawn before the first prompt is not the turn’s reply', () => {
  it.each([
    ['kilo', '7.7.7', 'normal-turn'],
    ['kilo', '7.7.7', 'size-80x24-normal-turn'],
  ])('%s %s %s: the empty session held 8 s, then the reply', (tool, version, name) => {
    const logo = /██ {2}██ ██/;
    const { frame, states } = replayHeld(tool, name, logo, 'say hello');
    // The held frame is an idle prompt with nothing to say about the turn: ready, no activity,
    // no outcome, and a transcript as empty as the start screen's.
    const profile = getProfile(tool, version);
    const read = profile.parse({ text: frame.text! });
    expect(read.evidence.rule).toBe('ready');
    expect(read.signals.activeReasons).toEqual([]);
    const start = load(tool, name).find((l) => l.type === 'frame' && logo.test(l.text ?? ''))!;
    expect(profile.parse({ text: start.text! }).surface.projectionText).toBe(
      read.surface.projectionText,
    );

    // The turn stays open through the hold (no outcome, no second turn) and ends a success.
    const turns = new Set(states.map((s) => s.turn.current?.id).filter((id) => id));
    expect([...turns]).toEqual(['turn-1']);
    const outcomes = new Set(states.map((s) => `${s.lastTurn.turnId ?? '-'}:${s.lastTurn.result}`));
    expect([...outcomes]).toEqual(['-:none', 'turn-1:success']);
    expect(states.at(-1)!.lastTurn).toMatchObject({ turnId: 'turn-1', result: 'success' });
  });
});
