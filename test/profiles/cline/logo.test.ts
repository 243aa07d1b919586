import { describe, expect, it } from 'vitest';
import { createClineProfile } from '../../../src/profiles/cline/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';

/**
 * Cline redraws the logo above its welcome line as a prompt is typed into the box
 * (test/fixtures/cline/enter-in-paste.jsonl). Read as transcript, typing alone would change the
 * turn's projection: a turn whose Enter was lost would look started, and end with nothing.
 */
const profile = createClineProfile('3.0.65');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = recordedScreens('cline', 'enter-in-paste');
const rows = (text: string) => text.split('\n');
const inBox = (text: string, draft: string) => rows(text).some((l) => l.trim() === `❯ ${draft}`);
const LOGO = /^ *[#*+.:;@][ #*+.:;@]*$/;
const logo = (text: string) => rows(text).filter((l) => LOGO.test(l));

const typedAt = screens.findIndex((t) => inBox(t, 'create approved.txt'));
const idle = screens[typedAt - 1]!;
const typed = screens[typedAt]!;

describe('Cline: the welcome logo is not the transcript', () => {
  it('the recording has the logo redrawn when the prompt was typed', () => {
    expect(typedAt).toBeGreaterThan(0);
    expect(inBox(idle, 'What can I do for you?')).toBe(true);
    expect(logo(idle).length).toBeGreaterThan(5);
    expect(logo(typed)).not.toEqual(logo(idle));
  });

  it('the idle welcome screen and the one with the draft have the same projection', () => {
    expect(read(idle).evidence.rule).toBe('ready');
    expect(read(typed).evidence.rule).toBe('draft');
    expect(read(typed).surface.projectionText).toBe(read(idle).surface.projectionText);
    expect(read(idle).surface.projectionText).toMatch(/^What can I do for you\?/);
  });

  it('after the first prompt, rows of the same glyphs are transcript (a reply may draw them)', () => {
    const after = screens.findLast((t) =>
      rows(t).some((l) => /^ ❯ create approved\.txt$/.test(l)),
    )!;
    const rule = rows(after).findIndex((l) => /^ ❯ create approved\.txt$/.test(l));
    const art = ' @@@ ### ***';
    const withArt = [...rows(after).slice(0, rule + 1), art, ...rows(after).slice(rule + 1)];
    expect(read(withArt.join('\n')).surface.projectionText).toContain(art.trim());
    expect(read(after).surface.projectionText).not.toContain(art.trim());
    // The echo scrolled to the top row: the rows under it are still the turn's.
    const scrolled = withArt.slice(rule);
    expect(read(scrolled.join('\n')).surface.projectionText).toContain(art.trim());
  });
});
