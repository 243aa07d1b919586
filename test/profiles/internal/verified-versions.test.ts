import { describe, expect, it } from 'vitest';
import {
  getProfile,
  isVerifiedVersion,
  PROFILES,
  verifiedVersionsOf,
} from '../../../src/profiles/index.js';

describe('verified versions', () => {
  it('every shipped CLI profile names the exact versions it was verified against', () => {
    for (const id of Object.keys(PROFILES).filter((id) => id !== 'unsupported')) {
      const versions = verifiedVersionsOf(id);
      expect(versions.length, id).toBeGreaterThan(0);
      for (const v of versions) expect(v, id).toMatch(/^\d+\.\d+\.\d+$/);
      expect(getProfile(id).verifiedVersions, id).toBe(versions.join(', '));
    }
  });

  it('tells a verified version from a newer one, an unknown one and an unknown tool', () => {
    expect(isVerifiedVersion('codex', '0.169.0')).toBe(true);
    expect(isVerifiedVersion('codex', 'v0.169.0')).toBe(true);
    expect(isVerifiedVersion('codex', '0.171.0')).toBe(true);
    expect(isVerifiedVersion('codex', '0.170.0')).toBe(false);
    expect(isVerifiedVersion('codex', undefined)).toBe(false);
    expect(isVerifiedVersion('no_such_cli', '1.0.0')).toBe(false);
    expect(verifiedVersionsOf('unsupported')).toEqual([]);
  });
});
