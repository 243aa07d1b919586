import { describe, expect, it } from 'vitest';
import { createClineProfile } from '../../../src/profiles/cline/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreen } from '../real-frame.js';

const profile = createClineProfile('3.0.65');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

/**
 * interrupted, frame 18: ` ⠋ Thinking... (esc to cancel)` above the prompt box, with Cline's
 * scroll bar (`▄`, then `█` alone on each row) drawn down the right edge beneath it.
 */
const waiting = () => recordedScreen('cline', 'interrupted', 18);

describe('cline: the scroll bar is not the spinner', () => {
  it('the real frame shows the wait line, then rows holding only the scroll bar', () => {
    const rows = waiting().split('\n');
    const wait = rows.findIndex((l) => l === ' ⠋ Thinking... (esc to cancel)');
    expect(wait).toBeGreaterThan(0);
    expect(rows.slice(wait + 1).some((l) => /^\s+▄$/.test(l))).toBe(true);
    expect(parse(waiting()).signals.activeReasons).toContain('esc_to_cancel');
  });

  it('a wait line with an unknown glyph and no hint reads unknown, never ready', () => {
    const text = waiting().replace(' ⠋ Thinking... (esc to cancel)', ' ✶ Thinking...');
    const r = parse(text);
    expect(r.surface.businessState).toBe('unknown');
    expect(r.signals.readyPosture).not.toBe('yes');
    expect(r.signals.successCandidate).toBe(false);
  });
});

/**
 * permission-approved, frame 19: ` ⠋ Thinking... (esc to cancel)` in the transcript, then the
 * placeholder and the hint Cline draws above the box (`What can I do for you?`, `Use / for slash
 * commands, …`), and the prompt still in the box.
 */
const thinkingOverHints = () => recordedScreen('cline', 'permission-approved', 19);

describe('cline: the placeholder and hint above the box are not the spinner', () => {
  it('the real frame shows the wait line above the placeholder and the hint', () => {
    const rows = thinkingOverHints().split('\n');
    const wait = rows.findIndex((l) => l === ' ⠋ Thinking... (esc to cancel)');
    expect(wait).toBeGreaterThan(0);
    expect(rows.slice(wait + 1).some((l) => l.trim() === 'What can I do for you?')).toBe(true);
    expect(rows.slice(wait + 1).some((l) => l.includes('Use / for slash commands'))).toBe(true);
    expect(parse(thinkingOverHints()).signals.activeReasons).toContain('esc_to_cancel');
  });

  it('a wait line in a screen reader’s words and no hint reads unknown, never ready', () => {
    const text = thinkingOverHints().replace(
      ' ⠋ Thinking... (esc to cancel)',
      ' loading Thinking...',
    );
    const r = parse(text);
    expect(r.surface.businessState).toBe('unknown');
    expect(r.signals.readyPosture).not.toBe('yes');
    expect(r.signals.successCandidate).toBe(false);
  });
});
