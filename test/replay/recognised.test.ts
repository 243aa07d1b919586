import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXPECTATIONS } from './expectations.js';
import { FIXTURES, loadReplayed } from './ground-truth.js';

/**
 * Every screen the real CLIs drew in the recordings matches one of their profile's known shapes.
 * A screen that does not (a new release's) is reported `recognised: false` and read as unknown,
 * never as ready: here that would mean the profile misses a shape of its own verified version.
 */
describe('every recorded screen matches a known shape of its profile', () => {
  for (const tool of Object.keys(EXPECTATIONS)) {
    const scenarios = readdirSync(`${FIXTURES}${tool}`)
      .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.server.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    const known = (scenario: string) =>
      EXPECTATIONS[tool]!.scenarios[scenario]?.knownProfileWeakness?.failing.includes(
        'recognised',
      ) === true;
    const check = (scenario: string) => {
      const r = loadReplayed(tool, scenario);
      const unrecognised = r.frames.filter((f) => f.parsed?.recognised === false).map((f) => f.t);
      expect(unrecognised, 'times of unrecognised frames').toEqual([]);
    };
    const passing = scenarios.filter((s) => !known(s));
    const failing = scenarios.filter(known);
    if (passing.length > 0) it.each(passing)(`${tool}/%s`, check);
    if (failing.length > 0) it.fails.each(failing)(`${tool}/%s (known profile weakness)`, check);
  }
});
