import { describe, expect, it } from 'vitest';
import { getProfile, PROFILES } from '../../src/profiles/index.js';
import { ProfileResult } from '../../src/schemas/signals.js';
import { recordedScreens } from './real-frame.js';

const CLIS = Object.keys(PROFILES).filter((id) => id !== 'unsupported');

/** A finished, idle screen of the CLI: the last frame of its normal-turn recording that has text. */
function idleScreen(tool: string): string {
  return recordedScreens(tool, 'normal-turn')
    .filter((s) => s.trim() !== '')
    .at(-1)!;
}

/** What a release with another layout might draw: the same words, other frames and glyphs. */
function redrawn(screen: string): string {
  return screen.replace(/[─━│┃╭╮╰╯╹▀▄❯›>▣●⏺✦*]/g, ' ');
}

describe.each(CLIS)('%s: a screen of no known shape', (tool) => {
  const profile = getProfile(tool);

  it('reads the real idle screen as ready (the starting point)', () => {
    const r = ProfileResult.parse(profile.parse({ text: idleScreen(tool) }));
    expect(r.recognised).toBe(true);
    expect(r.signals.readyPosture).toBe('yes');
  });

  it('is never read as ready or as a finished turn once its frames change', () => {
    const r = ProfileResult.parse(profile.parse({ text: redrawn(idleScreen(tool)) }));
    expect(r.signals.readyPosture).not.toBe('yes');
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.businessState).not.toBe('idle');
  });

  it('says so when nothing of it is known', () => {
    const r = ProfileResult.parse(profile.parse({ text: 'Welcome to Agent 9.0\n\n> _\n' }));
    expect(r.recognised).toBe(false);
    expect(r.surface).toMatchObject({ availability: 'unknown', businessState: 'unknown' });
    expect(r.evidence.rule).toBe('unrecognised');
  });
});
