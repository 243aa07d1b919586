import { describe, expect, it } from 'vitest';
import { accumulateEvidence, initialEvidence } from '../../src/kernel/evidence.js';
import { normalizeProjection } from '../../src/kernel/normalize.js';
import { candidateSignature } from '../../src/kernel/signature.js';

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
});

describe('post-submit evidence', () => {
  it('starts empty with the normalised baseline as key', () => {
    expect(initialEvidence('base  \n')).toEqual({
      sawWorking: false,
      sawProjectionChange: false,
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

  it('baselineInvalidated freezes the key at that observation and counts no change there', () => {
    let ev = initialEvidence('old');
    ev = accumulateEvidence(ev, o('idle', 'cleared  ', true));
    expect(ev).toMatchObject({
      projectionKey: 'cleared',
      keyFrozen: true,
      sawProjectionChange: false,
    });
    ev = accumulateEvidence(ev, o('idle', 'cleared'));
    expect(ev.sawProjectionChange).toBe(false);
    // A later invalidation does not move the frozen key.
    ev = accumulateEvidence(ev, o('idle', 'other', true));
    expect(ev.projectionKey).toBe('cleared');
    expect(ev.sawProjectionChange).toBe(true);
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
    projectionText: 'b\nreply',
  };
  const ev = { sawWorking: true, sawProjectionChange: true };

  it('does not include uiContext', () => {
    const a = candidateSignature({ ...base, uiContext: 'normal_prompt' } as typeof base, ev);
    const b = candidateSignature({ ...base, uiContext: 'slash_menu' } as typeof base, ev);
    expect(a).toBe(b);
  });

  it('ignores whitespace-only projection differences', () => {
    expect(candidateSignature({ ...base, projectionText: 'b\nreply  \n' }, ev)).toBe(
      candidateSignature(base, ev),
    );
  });

  it.each([
    ['availability', { ...base, availability: 'unknown' as const }, ev],
    ['businessState', { ...base, businessState: 'working' as const }, ev],
    ['inputMode', { ...base, inputMode: 'modal' as const }, ev],
    ['projection', { ...base, projectionText: 'b\nreply\nmore' }, ev],
    ['sawWorking', base, { ...ev, sawWorking: false }],
    ['sawProjectionChange', base, { ...ev, sawProjectionChange: false }],
  ])('changes with %s', (_name, obs, evidence) => {
    expect(candidateSignature(obs, evidence)).not.toBe(candidateSignature(base, ev));
  });
});
