import { describe, expect, it } from 'vitest';
import { spliceMember } from '../../src/hooks/json-splice.js';

describe('spliceMember', () => {
  const tricky = '{ "a": "x}\\"{,", "hooks": {"k": 1}, "b": [1, {"c": "]"}], "n": -1.5e3 }';

  it('replaces, removes and adds one member, every other byte as it was', () => {
    expect(spliceMember(tricky, 'hooks', { k: 2 }, 2)).toBe(
      '{ "a": "x}\\"{,", "hooks": {\n    "k": 2\n  }, "b": [1, {"c": "]"}], "n": -1.5e3 }',
    );
    expect(spliceMember(tricky, 'hooks', undefined, 2)).toBe(
      '{ "a": "x}\\"{,", "b": [1, {"c": "]"}], "n": -1.5e3 }',
    );
    expect(spliceMember(tricky, 'z', true, '\t')).toBe(
      '{ "a": "x}\\"{,", "hooks": {"k": 1}, "b": [1, {"c": "]"}], "n": -1.5e3,\n\t"z": true }',
    );
    expect(JSON.parse(spliceMember(tricky, 'n', undefined, 2))).toEqual({
      a: 'x}"{,',
      hooks: { k: 1 },
      b: [1, { c: ']' }],
    });
  });

  it('the first or only member, and an empty object', () => {
    expect(spliceMember('{"hooks": 1, "b": 2}', 'hooks', undefined, 2)).toBe('{"b": 2}');
    expect(spliceMember('{\n  "hooks": 1\n}\n', 'hooks', undefined, 2)).toBe('{}\n');
    expect(spliceMember('{}\n', 'hooks', [1], 2)).toBe('{\n  "hooks": [\n    1\n  ]\n}\n');
    expect(spliceMember('{}', 'missing', undefined, 2)).toBe('{}');
  });
});
