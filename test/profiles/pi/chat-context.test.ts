import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPiProfile } from '../../../src/profiles/pi/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords } from '../wrapped.js';

/**
 * The chat context on pi 0.73.1's real long-context recordings (the fake usage near a declared
 * 128,000-token window): a compaction's failure as the transcript's last paragraph reads
 * `degraded` with its reason; a compaction that worked, and the failure above a later prompt,
 * read `current`. The turn's own outcome is read above that paragraph.
 */
const profile = createPiProfile('0.73.1');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('pi', `0.73.1/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const TROUBLE = /^ (?:Auto-compaction failed|Context overflow recovery failed): /;
const FAILED: ReadonlyArray<[scenario: string, type: string, rule: string]> = [
  ['compact-context-length-exceeded', 'pi_auto_compaction_failed', 'finished'],
  ['compact-error-500', 'pi_auto_compaction_failed', 'finished'],
  ['context-length-exceeded', 'pi_context_overflow_recovery_failed', 'error:request_rejected'],
];

/** The failure's paragraph in a real last frame: its first row and the row after its last. */
function paragraph(rows: readonly string[]): { at: number; end: number } {
  const at = rows.findIndex((l) => TROUBLE.test(l));
  if (at < 0) throw new Error('no compaction failure');
  let end = at + 1;
  while (end < rows.length && rows[end]!.trim() !== '') end++;
  return { at, end };
}

describe("pi chat context: the real frames of 0.73.1's long conversations", () => {
  for (const [scenario, type, rule] of FAILED) {
    it(`${scenario}: the compaction's failure ends the transcript: degraded (${type})`, () => {
      const all = screens(scenario);
      const first = all.findIndex((t) => t.split('\n').some((l) => TROUBLE.test(l)));
      expect(first, 'a frame with the failure').toBeGreaterThan(0);
      for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
      for (const t of all.slice(first)) {
        const r = read(t);
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(type);
      }
      // The turn's outcome comes from what is above the failure: the reply, or the turn's error.
      expect(read(lastScreen(scenario)).evidence.rule).toBe(rule);
    });
  }

  it('context-near-full: `Compacted from 125,022 tokens` leaves the context current', () => {
    const all = screens('context-near-full');
    expect(all.some((t) => /^ Compacted from 125,022 tokens/m.test(t))).toBe(true);
    expect(all.some((t) => / Auto-compacting\.\.\. \(escape to cancel\)$/m.test(t))).toBe(true);
    for (const t of all) expect(read(t).signals.chatContext).not.toBe('degraded');
    expect(read(lastScreen('context-near-full')).evidence.rule).toBe('finished');
  });

  it('the compacting line reads working', () => {
    const t = screens('context-near-full').find((s) => / Auto-compacting\.\.\. /.test(s))!;
    expect(read(t).signals.activeReasons).toContain('compacting');
  });

  it('compact-error-then-success: the next prompt compacts, and pi redraws without the failure', () => {
    const all = screens('compact-error-then-success');
    const shown = all.findIndex((t) => t.split('\n').some((l) => TROUBLE.test(l)));
    expect(shown).toBeGreaterThan(0);
    expect(read(all[shown]!).signals.chatContext).toBe('degraded');
    const text = all.at(-1)!;
    expect(text.split('\n').some((l) => TROUBLE.test(l))).toBe(false);
    expect(text).toMatch(/^ Compacted from 125,022 tokens/m);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.evidence.rule).toBe('finished');
  });
});

describe('pi chat context: variants of the real frames', () => {
  it('the failure wrapped at any width keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fc.integer({ min: 30, max: 200 }),
        ([scenario, type], width) => {
          const rows = lastScreen(scenario).split('\n');
          const { at, end } = paragraph(rows);
          const text = rows
            .slice(at, end)
            .map((l) => l.trim())
            .join(' ');
          const screen = [...rows.slice(0, at), ...wrapWords(text, width, ' '), ...rows.slice(end)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('degraded');
          expect(r.signals.degradedErrorType).toBe(type);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('other numbers in the message: the same reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fc.integer({ min: 1000, max: 2_000_000 }),
        ([scenario, type], n) => {
          const rows = lastScreen(scenario).split('\n');
          const { at, end } = paragraph(rows);
          const text = rows
            .slice(at, end)
            .map((l) => l.trim())
            .join(' ')
            .replace(/\d{5,}/g, String(n));
          const screen = [...rows.slice(0, at), ...wrapWords(text, 158, ' '), ...rows.slice(end)];
          const r = read(screen.join('\n'));
          expect(r.signals.degradedErrorType).toBe(type);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('a later prompt and reply under the failure: history, current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fc.array(fc.constantFrom('alpha', 'beta', 'next', 'step'), { minLength: 1, maxLength: 8 }),
        ([scenario], words) => {
          const rows = lastScreen(scenario).split('\n');
          const { end } = paragraph(rows);
          const later = ['', '', ` ${words.join(' ')}`, '', '', ' Done, here it is.'];
          const screen = [...rows.slice(0, end), ...later, ...rows.slice(end)].slice(later.length);
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
        },
      ),
      { numRuns: 50 },
    );
  });

  it('the same words inside a paragraph of a reply are not the context', () => {
    for (const [scenario] of FAILED) {
      const rows = lastScreen(scenario).split('\n');
      const { at } = paragraph(rows);
      const screen = [...rows.slice(0, at), ' As the log said:', ...rows.slice(at)];
      expect(read(screen.join('\n')).signals.chatContext).toBe('current');
    }
  });
});
