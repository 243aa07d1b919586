import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/index.js';
import { pressInterrupt } from '../../src/terminal/typing.js';

describe('pressInterrupt', () => {
  it('sends each press on its own, the profile gap apart (opencode interrupts on the second Escape)', async () => {
    const sends: { keys: readonly string[]; at: number }[] = [];
    const t0 = Date.now();
    await pressInterrupt(getProfile('opencode'), async (keys) => {
      sends.push({ keys, at: Date.now() - t0 });
    });
    expect(sends.map((s) => s.keys)).toEqual([['Escape'], ['Escape']]);
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(150);
  });

  it('presses once for a CLI that interrupts on the first key', async () => {
    const sends: (readonly string[])[] = [];
    await pressInterrupt(getProfile('claude_code'), async (keys) => {
      sends.push(keys);
    });
    expect(sends).toEqual([['Escape']]);
  });
});
