import { describe, expect, it } from 'vitest';
import { duplicateKey, parseTree, spliceMember } from '../../src/hooks/json-splice.js';

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

describe('parseTree and duplicateKey', () => {
  it('keeps every member, a key given twice included, with where each value is', () => {
    const text = '{ "a\\"}": [1, {"b": "]"}], "a\\"}": {}, "c": null }';
    const root = parseTree(text);
    expect(root.kind).toBe('object');
    if (root.kind !== 'object') return;
    expect(root.members.map((m) => m.key)).toEqual(['a"}', 'a"}', 'c']);
    const first = root.members[0]!.value;
    expect(text.slice(first.start, first.end)).toBe('[1, {"b": "]"}]');
    expect(root.end).toBe(text.length);
    expect(duplicateKey(root)).toEqual({ path: '', key: 'a"}' });
  });

  it('names where a nested key is given twice; none in a clean text', () => {
    expect(duplicateKey(parseTree('{"h": {"S": [{"x": 1, "x": 2}]}}'))).toEqual({
      path: 'h.S[0]',
      key: 'x',
    });
    expect(duplicateKey(parseTree('{"x": {"x": [{"x": 1}]}}'))).toBeNull();
  });
});
