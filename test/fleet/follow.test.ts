// What a fresh read of the state bucket drops: a terminal the listing no longer shows, never one
// the new watch delivered after the listing was taken (that one was lost from a fleet view and
// never came back while its pane stayed still).
import { describe, expect, it } from 'vitest';
import { goneSince } from '../../src/fleet/follow.js';

describe('goneSince', () => {
  const known: Array<[string, string]> = [
    ['h/a', 'h.a'],
    ['h/b', 'h.b'],
    ['h/c', 'h.c'],
  ];

  it('drops what is neither listed nor heard', () => {
    expect(goneSince(known, new Set(['h.a']), new Set(['h/b']))).toEqual(['h/c']);
  });

  it('keeps a value written after the listing was taken', () => {
    expect(goneSince(known, new Set([]), new Set(['h/a', 'h/b', 'h/c']))).toEqual([]);
  });

  it('drops nothing when the bucket could not be listed', () => {
    expect(goneSince(known, null, new Set())).toEqual([]);
  });
});
