import { describe, expect, it } from 'vitest';
import { getProfile, toolVersionVerified, verifiedVersionsOf } from '../../src/profiles/index.js';

describe('profiles are shared by the terminals of one tool, version and options', () => {
  it('gives the same object for the same tool, version and options, another for any other', () => {
    const a = getProfile('claude_code', '2.1.330');
    expect(getProfile('claude_code', '2.1.330')).toBe(a);
    expect(getProfile('claude_code', '2.1.330', { verifiedOnly: false })).toBe(a);
    expect(getProfile('claude_code', '2.1.331')).not.toBe(a);
    expect(getProfile('claude_code')).not.toBe(a);
    expect(getProfile('codex', '2.1.330')).not.toBe(a);
    // A version newer than every verified one is read unless the strict gate is on.
    const read = getProfile('claude_code', '99.0.0');
    const gated = getProfile('claude_code', '99.0.0', { verifiedOnly: true });
    expect(read).not.toBe(gated);
    expect(gated.unverifiedUnread).toBe(true);
    expect(read.unverifiedUnread).toBeUndefined();
  });

  it('keeps a bounded number: many versions later, a profile is made again, and reads alike', () => {
    const first = getProfile('gemini_cli', '0.1.0');
    for (let i = 0; i < 300; i++) getProfile('gemini_cli', `0.0.${i}`);
    const again = getProfile('gemini_cli', '0.1.0');
    expect(again).not.toBe(first);
    const screen = { text: '> \n' };
    expect(again.parse(screen)).toEqual(first.parse(screen));
  });

  it('says whether a running release is verified: null when unknown or when no release of the tool is', () => {
    const [newest] = verifiedVersionsOf('claude_code');
    expect(toolVersionVerified('claude_code', newest!)).toBe(true);
    expect(toolVersionVerified('claude_code', '99.0.0')).toBe(false);
    expect(toolVersionVerified('claude_code', null)).toBeNull();
    expect(toolVersionVerified('unsupported', '1.0.0')).toBeNull();
    expect(toolVersionVerified('my_own_cli', '1.0.0')).toBeNull();
  });
});
