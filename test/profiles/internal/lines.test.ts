import { describe, expect, it } from 'vitest';
import { lastNonBlank, screenLines } from '../../../src/profiles/internal/lines.js';
import { boundMessage, MAX_FAILURE_MESSAGE } from '../../../src/profiles/internal/failure.js';

describe('screen lines', () => {
  it('right-trims lines and drops trailing blank ones', () => {
    expect(screenLines('  a  \n b\n   \n\n')).toEqual(['  a', ' b']);
    expect(screenLines('\n\n')).toEqual([]);
  });

  it('finds the last non-blank line as it is drawn', () => {
    expect(lastNonBlank(['a', '  b  ', '   ', ''])).toBe('  b  ');
    expect(lastNonBlank(['', ' '])).toBe('');
  });
});

describe('failure messages', () => {
  it('are bounded to one length in every profile', () => {
    expect(MAX_FAILURE_MESSAGE).toBe(200);
    expect(boundMessage('x'.repeat(500))).toHaveLength(200);
    expect(boundMessage('short')).toBe('short');
  });
});
