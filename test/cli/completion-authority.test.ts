import { describe, expect, it } from 'vitest';
import { ServeOptions } from '../../src/cli/serve-options.js';
import { WatchOptions } from '../../src/cli/watch.js';
import { AttachBody } from '../../src/schemas/operations/index.js';
import { createSupervisor } from '../../src/index.js';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe('--completion-authority (docs/witness.md)', () => {
  for (const [name, schema, base] of [
    ['watch', WatchOptions, { targets: ['s:0.0'] }],
    ['serve', ServeOptions, {}],
  ] as const) {
    it(`${name}: takes surface, markers or both, and refuses anything else naming the option`, () => {
      for (const mode of ['surface', 'markers', 'both'] as const) {
        expect(schema.parse({ ...base, completionAuthority: mode }).completionAuthority).toBe(mode);
      }
      expect(schema.parse(base).completionAuthority).toBeUndefined();
      expect(messages(schema.safeParse({ ...base, completionAuthority: 'screen' }))).toEqual([
        '--completion-authority must be surface, markers or both',
      ]);
    });
  }

  it('attach (HTTP body) and createSupervisor take it, and refuse a bad one naming the field', async () => {
    expect(AttachBody.parse({ target: 's:0.0', completionAuthority: 'markers' })).toMatchObject({
      completionAuthority: 'markers',
    });
    const bad = AttachBody.safeParse({ target: 's:0.0', completionAuthority: 'nope' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['completionAuthority']);
    expect(() =>
      createSupervisor({ dataDir: null, completionAuthority: 'sometimes' as 'both' }),
    ).toThrow(/completionAuthority/);
    const sup = createSupervisor({
      dataDir: null,
      completionAuthority: 'surface',
      source: 'polling',
    });
    await sup.stop();
  });
});
