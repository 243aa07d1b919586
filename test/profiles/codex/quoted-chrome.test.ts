import { describe, expect, it } from 'vitest';
import { createCodexProfile } from '../../../src/profiles/codex/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreen, replaceRows } from '../real-frame.js';

// Every screen here is a real capture with one or more reply rows replaced: a model's reply can
// contain any text, including the CLI's own chrome, and must not be read as that chrome.
const profile = createCodexProfile('0.169.0');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

/** normal-turn, last frame: the finished reply (rows 8-9), `  Worked for 2s • 08:36` (row 11). */
const finished = () => recordedScreen('codex', 'normal-turn', -1);
/** normal-turn, frame 24: the reply's first row is streaming (row 8), nothing below it yet. */
const streaming = () => recordedScreen('codex', 'normal-turn', 24);

describe('codex: a reply that quotes the status line', () => {
  it('the real screens read as expected before any row is replaced', () => {
    expect(parse(finished()).evidence.rule).toBe('finished');
    expect(parse(streaming()).evidence.rule).toBe('working:turn_in_progress');
    const running = recordedScreen('codex', 'hang', 50);
    expect(running).toMatch(/^◦ Working \(9s • esc to interrupt\)$/m);
    expect(parse(running).signals.activeReasons).toEqual(['status_line']);
  });

  it('a finished turn whose reply quotes `• Working (5s • esc to interrupt)` is finished', () => {
    const text = replaceRows(finished(), [
      [8, '• Hello!', '• While a turn runs, Codex draws a status line right above the composer:'],
      [9, '  streams.', '  • Working (5s • esc to interrupt)'],
    ]);
    const r = parse(text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.activeReasons).toEqual([]);
    expect(r.signals.successCandidate).toBe(true);
  });

  it('a quoted status line inside a reply row does not count either', () => {
    const text = replaceRows(finished(), [
      [8, '• Hello!', '• The line `• Working (5s • esc to interrupt)` means a turn runs.'],
    ]);
    expect(parse(text).signals.activeReasons).toEqual([]);
  });
});

describe('codex: a reply that quotes the end-of-turn summary', () => {
  it('a streaming reply with a row starting "  Worked for 3s" is still running', () => {
    const text = replaceRows(streaming(), [
      [9, '', '  Worked for 3s on the first pass, then the test suite stalled.'],
    ]);
    const r = parse(text);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toEqual(['turn_in_progress']);
    expect(r.signals.successCandidate).toBe(false);
  });

  it('a summary-shaped reply row followed by more reply text does not end the turn', () => {
    const text = replaceRows(streaming(), [
      [9, '', '  Worked for 2s • 08:36'],
      [10, '', '  and that is how the summary row looks.'],
    ]);
    expect(parse(text).signals.activeReasons).toEqual(['turn_in_progress']);
  });

  it('a reply row starting "  Worked for" stays in the projection', () => {
    const text = replaceRows(finished(), [[9, '  streams.', '  Worked for 3s on the first pass.']]);
    expect(parse(text).surface.projectionText).toContain('Worked for 3s on the first pass.');
  });
});

describe('codex: a reply that quotes the approval dialog', () => {
  it('the real dialog reads as a permission prompt', () => {
    const dialog = recordedScreen('codex', 'permission-prompt', 20);
    const r = parse(dialog);
    expect(r.evidence.rule).toBe('dialog:permission_prompt');
    expect(r.surface.projectionText).toContain('• Running touch approved.txt');
    expect(r.surface.projectionText).not.toContain('Would you like');
  });

  it('a reply quoting the dialog header, with the composer drawn, is not a permission prompt', () => {
    const text = replaceRows(finished(), [
      [8, '• Hello!', '• Codex asks before it leaves the sandbox. The dialog starts with the line'],
      [9, '  streams.', '  Would you like to run the following command?'],
    ]);
    const r = parse(text);
    expect(r.evidence.rule).toBe('finished');
    expect(r.signals.blockedPrompt).toBeNull();
    expect(r.signals.readyPosture).toBe('yes');
  });

  it('a reply quoting the header and the footer is not a permission prompt', () => {
    const text = replaceRows(finished(), [
      [8, '• Hello!', '  Would you like to run the following command?'],
      [9, '  streams.', '  Press enter to confirm or esc to cancel'],
    ]);
    expect(parse(text).evidence.rule).toBe('finished');
  });
});
