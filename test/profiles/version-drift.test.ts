import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  getProfile,
  isNewerThanVerifiedVersion,
  PROFILES,
} from '../../src/profiles/index.js';
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

/** The verified version with its last number raised by one: a release nobody verified yet. */
function nextRelease(version: string): string {
  const parts = version.split('.').map(Number);
  parts[parts.length - 1]! += 1;
  return parts.join('.');
}

describe.each(CLIS)('%s: a version newer than the verified one', (tool) => {
  const verified = getProfile(tool).verified![0]!;
  const newer = nextRelease(verified);

  it(`under verifiedOnly reads nothing of ${tool} ${newer}: the real idle screen is unrecognised, never ready`, () => {
    const profile = getProfile(tool, newer, { verifiedOnly: true });
    expect(profile.unverifiedUnread).toBe(true);
    const r = ProfileResult.parse(profile.parse({ text: idleScreen(tool) }));
    expect(r.recognised).toBe(false);
    expect(r.signals.readyPosture).not.toBe('yes');
    expect(r.signals.successCandidate).toBe(false);
    expect(r.evidence.detector).toBe(`${tool}@${newer}:unverified`);
  });

  it('by default reads it with the newest vocabulary, as the verified version reads', () => {
    const profile = getProfile(tool, newer);
    expect(profile.unverifiedUnread).toBeUndefined();
    const r = ProfileResult.parse(profile.parse({ text: idleScreen(tool) }));
    expect(r.signals.readyPosture).toBe('yes');
    expect(r).toEqual(
      ProfileResult.parse(getProfile(tool, verified).parse({ text: idleScreen(tool) })),
    );
  });

  it('reads the verified version and an unknown one as always', () => {
    for (const version of [verified, `v${verified}`, undefined, 'nightly']) {
      const r = getProfile(tool, version).parse({ text: idleScreen(tool) });
      expect(r.signals.readyPosture, String(version)).toBe('yes');
    }
  });
});

describe('compareVersions and isNewerThanVerifiedVersion', () => {
  it('orders releases by their numbers, not as text', () => {
    expect(compareVersions('2.1.330', '2.1.99')).toBe(1);
    expect(compareVersions('2.1.99', '2.1.330')).toBe(-1);
    expect(compareVersions('v1.0', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.102-beta.1', '1.0.102')).toBe(0);
    expect(compareVersions('10.0.0', '9.99.99')).toBe(1);
  });

  it('calls a version newer only when it is newer than every verified one', () => {
    expect(isNewerThanVerifiedVersion('claude_code', '2.1.333')).toBe(true);
    expect(isNewerThanVerifiedVersion('claude_code', '2.2.0')).toBe(true);
    expect(isNewerThanVerifiedVersion('claude_code', '2.1.332')).toBe(false);
    // Between two verified releases: older than the newest, so not newer.
    expect(isNewerThanVerifiedVersion('claude_code', '2.1.331')).toBe(false);
    expect(isNewerThanVerifiedVersion('claude_code', '2.1.330')).toBe(false);
    expect(isNewerThanVerifiedVersion('claude_code', '2.1.300')).toBe(false);
    expect(isNewerThanVerifiedVersion('claude_code', 'nightly')).toBe(false);
    expect(isNewerThanVerifiedVersion('claude_code', undefined)).toBe(false);
    expect(isNewerThanVerifiedVersion('no_such_cli', '1.0.0')).toBe(false);
  });
});
