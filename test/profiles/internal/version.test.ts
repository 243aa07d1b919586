import { describe, expect, it } from 'vitest';
import { pickVersioned } from '../../../src/profiles/internal/version.js';

const list = [
  { label: 'new', covers: (major: number, minor: number) => major > 1 || minor >= 5 },
  { label: 'old', covers: (major: number) => major >= 1 },
] as const;

describe('pickVersioned', () => {
  it('takes the first entry that covers the version', () => {
    expect(pickVersioned(list, '1.6.0').label).toBe('new');
    expect(pickVersioned(list, '2.0.1').label).toBe('new');
    expect(pickVersioned(list, '1.2.3').label).toBe('old');
    expect(pickVersioned(list, 'v1.2.3').label).toBe('old');
  });

  it('falls back to the newest (first) entry when the version is unknown or not covered', () => {
    expect(pickVersioned(list).label).toBe('new');
    expect(pickVersioned(list, '').label).toBe('new');
    expect(pickVersioned(list, 'nightly').label).toBe('new');
    expect(pickVersioned(list, '0.9.0').label).toBe('new');
  });

  it('refuses an empty list', () => {
    expect(() => pickVersioned([], '1.0.0')).toThrow();
  });
});
