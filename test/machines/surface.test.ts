import { describe, expect, it } from 'vitest';
import {
  accumulateEvidence,
  candidateSignature,
  initialEvidence,
  normalizeProjection,
} from '../../machines/surface.js';

const o = (
  businessState: 'idle' | 'working',
  projectionText: string,
  baselineInvalidated = false,
) => ({
  businessState,
  projectionText,
  baselineInvalidated,
});

describe('normalizeProjection', () => {
  it.each([
    ['a  \nb\t \n', 'a\nb'],
    ['\n\n  \nreply\n\n', 'reply'],
    ['a\r\nb  \r\n', 'a\nb'],
    ['  indented stays', 'indented stays'],
    ['a\n  b', 'a\n  b'],
    ['', ''],
  ])('%j → %j', (input, want) => {
    expect(normalizeProjection(input)).toBe(want);
  });

  it('answers as the rule does for any text, asked once or twice, trailing space or none', () => {
    const rule = (text: string) =>
      text
        .split(/\r?\n/)
        .map((line) => line.trimEnd())
        .join('\n')
        .trim();
    const parts = ['a', 'bc', ' ', '\t', '\n', '\r', '\r\n', '\u00a0', '\u3000', '\v'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 2000; i++) {
      let text = '';
      for (let n = next() % 12; n > 0; n--) text += parts[next() % parts.length];
      expect(normalizeProjection(text), JSON.stringify(text)).toBe(rule(text));
      expect(normalizeProjection(text), JSON.stringify(text)).toBe(rule(text));
    }
  });
});

describe('post-submit evidence', () => {
  it('starts empty with the normalised baseline as key', () => {
    expect(initialEvidence('base  \n')).toEqual({
      sawWorking: false,
      sawProjectionChange: false,
      baselineKey: 'base',
      projectionKey: 'base',
      keyFrozen: false,
    });
  });

  it('sawWorking is sticky', () => {
    let ev = initialEvidence('b');
    ev = accumulateEvidence(ev, o('working', 'b'));
    ev = accumulateEvidence(ev, o('idle', 'b'));
    expect(ev.sawWorking).toBe(true);
    expect(ev.sawProjectionChange).toBe(false);
  });

  it('sawProjectionChange is sticky, even when the screen returns to the baseline', () => {
    let ev = initialEvidence('b');
    ev = accumulateEvidence(ev, o('idle', 'b\nreply'));
    ev = accumulateEvidence(ev, o('idle', 'b'));
    expect(ev.sawProjectionChange).toBe(true);
  });

  it('whitespace-only differences are not a change', () => {
    const ev = accumulateEvidence(
      initialEvidence('line one\nline two'),
      o('idle', '\nline one   \nline two\n\n'),
    );
    expect(ev.sawProjectionChange).toBe(false);
  });

  it('baselineInvalidated freezes the projection key at that observation for the rest of the turn', () => {
    let ev = initialEvidence('old');
    ev = accumulateEvidence(ev, o('idle', 'cleared  ', true));
    // The frozen key is compared with the baseline: the cleared screen is a change.
    expect(ev).toMatchObject({
      projectionKey: 'cleared',
      keyFrozen: true,
      sawProjectionChange: true,
    });
    ev = accumulateEvidence(ev, o('idle', 'cleared\nreply'));
    expect(ev.projectionKey).toBe('cleared');
    // A later invalidation does not move the frozen key.
    ev = accumulateEvidence(ev, o('idle', 'other', true));
    expect(ev.projectionKey).toBe('cleared');
  });

  it('an invalidation that shows the baseline text is no change', () => {
    const ev = accumulateEvidence(initialEvidence('same'), o('idle', 'same', true));
    expect(ev).toMatchObject({ keyFrozen: true, sawProjectionChange: false });
    const later = accumulateEvidence(ev, o('idle', 'different now'));
    expect(later.sawProjectionChange).toBe(false);
  });

  it('is pure', () => {
    const ev = initialEvidence('b');
    accumulateEvidence(ev, o('working', 'x'));
    expect(ev).toEqual(initialEvidence('b'));
  });
});

describe('candidate signature', () => {
  const base = {
    availability: 'supported' as const,
    businessState: 'idle' as const,
    inputMode: 'freeform' as const,
  };
  /** Evidence of a turn that worked, then shows `text`. */
  const shown = (text: string, invalidated = false) =>
    accumulateEvidence(accumulateEvidence(initialEvidence('b'), o('working', 'b')), {
      businessState: 'idle',
      projectionText: text,
      baselineInvalidated: invalidated,
    });
  const ev = shown('b\nreply');

  it('does not include uiContext', () => {
    const a = candidateSignature({ ...base, uiContext: 'normal_prompt' } as typeof base, ev);
    const b = candidateSignature({ ...base, uiContext: 'slash_menu' } as typeof base, ev);
    expect(a).toBe(b);
  });

  it('ignores whitespace-only projection differences', () => {
    expect(candidateSignature(base, shown('b\nreply  \n'))).toBe(candidateSignature(base, ev));
  });

  it('holds the frozen key after a baseline invalidation, whatever the text shows', () => {
    const frozen = shown('cleared', true);
    const later = accumulateEvidence(frozen, {
      businessState: 'idle',
      projectionText: 'cleared\nreply',
      baselineInvalidated: false,
    });
    expect(candidateSignature(base, later)).toBe(candidateSignature(base, frozen));
  });

  it.each([
    ['availability', { ...base, availability: 'unknown' as const }, ev],
    ['businessState', { ...base, businessState: 'working' as const }, ev],
    ['inputMode', { ...base, inputMode: 'modal' as const }, ev],
    ['projection', base, shown('b\nreply\nmore')],
    ['sawWorking', base, { ...ev, sawWorking: false }],
    ['sawProjectionChange', base, { ...ev, sawProjectionChange: false }],
  ])('changes with %s', (_name, obs, evidence) => {
    expect(candidateSignature(obs, evidence)).not.toBe(candidateSignature(base, ev));
  });
});
