import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodexProfile } from '../../../src/profiles/codex/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreen, replaceRows } from '../real-frame.js';

// Codex 0.169.0 ends a turn with `  Worked for <duration> • <clock>`. Its formatter takes whole
// seconds: 0 reads `<1s` (quick-turn), under a minute `{s}s`, under an hour `{m}m {s}s` (`1m 2s`,
// minute-turn), else `{h}h {m}m {s}s`, all unpadded. Every one of them must end the turn; the
// zero-padded form the status line uses (`1m 00s`) is taken too.
const profile = createCodexProfile('0.169.0');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

/** quick-turn, last frame: `• Hi.` (row 8), `  Worked for <1s • 03:15` (row 10). */
const quick = () => recordedScreen('codex', 'quick-turn', -1);
const SUMMARY_ROW = 10;
const withSummary = (line: string) => replaceRows(quick(), [[SUMMARY_ROW, '  Worked for', line]]);

/** A duration of `s` whole seconds as Codex's formatter writes it (or zero-padded). */
function compactDuration(s: number, padded: boolean): string {
  if (s === 0) return '<1s';
  if (s < 60) return `${s}s`;
  const pad = (n: number) => (padded ? String(n).padStart(2, '0') : String(n));
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m ${pad(s % 60)}s`;
}

describe('codex: the end-of-turn summary in every duration form', () => {
  it('the real sub-second turn reads as finished', () => {
    const screen = quick();
    expect(screen.split('\n')[SUMMARY_ROW]).toBe('  Worked for <1s • 03:15');
    const r = parse(screen);
    expect(r.evidence.rule).toBe('finished');
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).not.toMatch(/Worked for/);
  });

  it('the real turn of over a minute reads as finished', () => {
    const screen = recordedScreen('codex', 'minute-turn', -1);
    expect(screen.split('\n')[11]).toBe('  Worked for 1m 2s • 03:17');
    expect(parse(screen).evidence.rule).toBe('finished');
  });

  it.each([
    '<1s',
    '0s',
    '2s',
    '59s',
    '1m 0s',
    '1m 2s',
    '1m 05s',
    '59m 59s',
    '1h 0m 5s',
    '1h 00m 00s',
    '12h 03m 07s',
  ])('`Worked for %s` ends the turn, in the plain and the rule-drawn form', (d) => {
    expect(parse(withSummary(`  Worked for ${d} • 03:15`)).evidence.rule).toBe('finished');
    expect(parse(withSummary(`─ Worked for ${d} ${'─'.repeat(40)}`)).evidence.rule).toBe(
      'finished',
    );
  });

  it('any duration the Codex formatter can write ends the turn', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), fc.boolean(), (s, padded) => {
        const r = parse(withSummary(`  Worked for ${compactDuration(s, padded)} • 03:15`));
        expect(r.evidence.rule).toBe('finished');
        expect(r.signals.successCandidate).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    '  Worked for <1s on the first pass.',
    '  Worked for <2s • 03:15',
    '  Worked for < 1s • 03:15',
    '  Worked for 1.5s • 03:15',
    '  Worked for <1m • 03:15',
    '  Worked for 1m • 03:15',
    '  Worked for 1h 2m • 03:15',
  ])('a reply row `%s` is not the summary', (line) => {
    const r = parse(withSummary(line));
    expect(r.evidence.rule).not.toBe('finished');
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.projectionText).toContain(line.trim());
  });
});
