import { describe, expect, it } from 'vitest';
import { createClaudeCodeProfile } from '../../../src/profiles/claude_code/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreen, recordedScreens, replaceRows } from '../real-frame.js';

// Every screen here is a real capture with one or more rows replaced: a model's reply (or the
// operator's draft) can contain any text, including the CLI's own chrome.
const profile = createClaudeCodeProfile('2.1.330');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

/** The notice as Claude Code draws it: `⎿`, a space and a no-break space before the text. */
const NOTICE = '  ⎿ \u00a0Interrupted · What should Claude do instead?';

/** normal-turn, last frame: reply row 8 (`● Hello! …`), `✻ Brewed for 2s · done …` on row 10, box row 42. */
const finished = () => recordedScreen('claude_code', 'normal-turn', -1);

describe('claude_code: a reply that quotes the interrupt notice', () => {
  it('the real screen reads as finished before any row is replaced', () => {
    expect(parse(finished()).evidence.rule).toBe('finished');
  });

  it('the notice quoted in a finished reply, character for character, is not an interrupt', () => {
    const text = replaceRows(finished(), [
      [8, '● Hello!', '● When you press Esc the CLI prints a line like this:'],
      [9, '', NOTICE],
    ]);
    const r = parse(text);
    expect(r.signals.interrupted).toBe(false);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.evidence.rule).toBe('finished');
  });

  it('every real interrupt notice still reads as interrupted once the turn settles', () => {
    for (const scenario of [
      'interrupted',
      'size-80x24-interrupted',
      'interrupted-then-success',
      'draft-over-old-marker',
    ]) {
      const settled = recordedScreens('claude_code', scenario).filter((t) =>
        t.split('\n').some((l) => l.trimEnd() === NOTICE),
      );
      expect(settled.length, scenario).toBeGreaterThan(0);
      const read = settled.map((t) => parse(t));
      // Frames where the notice is the latest turn's outcome and no new turn runs.
      const idle = read.filter((r) => r.surface.businessState === 'idle');
      expect(idle.length, scenario).toBeGreaterThan(0);
      expect(
        idle.some((r) => r.signals.interrupted),
        scenario,
      ).toBe(true);
    }
  });
});

describe('claude_code: the empty-box placeholder', () => {
  it('a draft that starts with `Try "` is a draft, not the placeholder', () => {
    const text = replaceRows(finished(), [
      [42, '❯', '❯ Try "npm test -- --bail" and fix what fails'],
    ]);
    const r = parse(text);
    expect(r.signals.editingInput).toBe('yes');
  });

  it('the placeholder-shaped hint alone is not a draft', () => {
    const text = replaceRows(finished(), [[42, '❯', '❯ Try "fix lint errors"']]);
    expect(parse(text).signals.editingInput).toBe('no');
  });
});
