import { describe, expect, it } from 'vitest';
import { Target, splitTarget } from '../../src/schemas/target.js';

describe('Target', () => {
  it.each(['work:0.1', 'my session:editor.2', '%0', '%123', '$1:@2.0'])('accepts %s', (t) => {
    expect(Target.parse(t)).toBe(t);
  });

  it.each(['', 'work', 'work:0', 'work:0.x', 'a.b:0.0', 'a:b:0.0', '%', '%1a', 'a\nb:0.1'])(
    'rejects %j naming the target',
    (t) => {
      const r = Target.safeParse(t);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toMatch(/^target /);
    },
  );

  it('splits a target into its parts', () => {
    expect(splitTarget('work:editor.2')).toEqual({ session: 'work', window: 'editor', pane: 2 });
    expect(splitTarget('%7')).toEqual({ paneId: '%7' });
  });

  it('trims surrounding whitespace', () => {
    expect(Target.parse(' work:0.1\n')).toBe('work:0.1');
  });
});
