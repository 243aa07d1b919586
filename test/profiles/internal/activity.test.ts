import { describe, expect, it } from 'vitest';
import { readLiveRegion } from '../../../src/profiles/internal/activity.js';
import { decide, type ScreenReading } from '../../../src/profiles/internal/decide.js';
import { getProfile } from '../../../src/profiles/index.js';
import { recordedScreens } from '../real-frame.js';

/** The first recorded frame the profile reads working on its spinner line, and that line's row. */
function workingFrame(tool: string, scenario: string, row: RegExp): { text: string; at: number } {
  const profile = getProfile(tool);
  for (const text of recordedScreens(tool, scenario)) {
    const r = profile.parse({ text });
    if (r.surface.businessState !== 'working') continue;
    const at = text.split('\n').findIndex((l) => row.test(l));
    if (at >= 0) return { text, at };
  }
  throw new Error(`${tool}/${scenario}: no working frame`);
}

function withRow(text: string, at: number, now: string): string {
  const rows = text.split('\n');
  rows[at] = now;
  return rows.join('\n');
}

describe('Qwen Code: the dots spinner it draws inside tmux', () => {
  const qwen = getProfile('qwen_code', '0.15.10');
  const { text, at } = workingFrame('qwen_code', 'normal-turn', /^ {2}[\u2800-\u28ff] ?\S/);

  for (const line of [
    '  .. Initiating thoughtful gaze... (1s · ↓ 4 tokens · esc to cancel)',
    '  .  Initiating thoughtful gaze... (1s · ↓ 4 tokens · esc to cancel)',
    '  ... Initiating thoughtful gaze... (12s · esc to cancel)',
    '  responding Initiating thoughtful gaze... (1s · ↓ 4 tokens · esc to cancel)',
  ]) {
    it(`reads ${JSON.stringify(line)} above the real prompt box as working`, () => {
      const r = qwen.parse({ text: withRow(text, at, line) });
      expect(r.surface.businessState).toBe('working');
      expect(r.signals.readyPosture).toBe('no');
      expect(r.signals.successCandidate).toBe(false);
    });
  }

  it('reads a spinner-shaped line with no hint as unknown, never idle', () => {
    const r = qwen.parse({ text: withRow(text, at, '  ⊶ Initiating thoughtful gaze...') });
    expect(r.surface.businessState).toBe('unknown');
    expect(r.signals.readyPosture).toBe('unknown');
    expect(r.signals.successCandidate).toBe(false);
    expect(r.evidence.rule).toBe('unknown:live_line');
  });
});

describe('Gemini CLI: a dots spinner in its working line', () => {
  const gemini = getProfile('gemini_cli', '0.61.0');
  const { text, at } = workingFrame('gemini_cli', 'normal-turn', /^ [\u2800-\u28ff] \S/);
  const phrase = text.split('\n')[at]!.slice(3);
  for (const glyph of ['.', '..', '...', '|', '✻', '']) {
    it(`reads the recorded working line with glyph ${JSON.stringify(glyph)} as working`, () => {
      const r = gemini.parse({ text: withRow(text, at, ` ${glyph} ${phrase}`) });
      expect(r.surface.businessState).toBe('working');
      expect(r.signals.readyPosture).toBe('no');
    });
  }
});

describe('readLiveRegion', () => {
  it.each([
    ['  .. Initiating thoughtful gaze... (1s · ↓ 4 tokens · esc to cancel)', 'escape_hint'],
    ['  Zorbling... (1s · ↓ 4 tokens)', 'token_counter'],
    [' Zorbling... (3s)', 'elapsed_counter'],
    [' ◉ Working · 44 B', 'working_line'],
    [' Retrying (1/3) in 2s...', 'retrying'],
    ['  ■■⬝⬝⬝⬝⬝⬝  esc interrupt', 'escape_hint'],
    [' Retrying (1/1) in 1s... (escape to cancel)', 'escape_hint'],
  ])('%j shows activity (%s)', (line, reason) => {
    expect(readLiveRegion([line]).active).toContain(reason);
  });

  it.each([
    '  ? for shortcuts',
    '  ● Tip Press escape to stop the AI mid-response',
    '  ✻ Worked for 3s',
    '  ● Request cancelled.',
    '                tab agents  ctrl+p commands',
  ])('%j shows none', (line) => {
    expect(readLiveRegion([line], [line])).toEqual({ active: [], unexplained: null });
  });

  it('an idle prompt with an unexplained status reads unknown, not ready', () => {
    const reading: ScreenReading = {
      shape: 'cli',
      dialog: null,
      prompt: { mode: 'freeform', editing: false },
      active: [],
      outcome: { kind: 'finished' },
      projection: 'reply',
      live: ['  ◐ something new'],
      unexplained: '◐ something new',
    };
    const r = decide(reading, 'x@1');
    expect(r.surface.businessState).toBe('unknown');
    expect(r.signals.readyPosture).toBe('unknown');
    expect(r.signals.successCandidate).toBe(false);
  });
});
