import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKiloProfile } from '../../../src/profiles/kilo/index.js';
import { createOpencodeProfile } from '../../../src/profiles/opencode/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { fillerWords } from '../wrapped.js';

/**
 * The chat context on the real long-context recordings of opencode 1.18.33 (the fake usage near
 * a declared 128,000-token window): the error block of a failed compaction, right above the
 * compaction's footer with no prompt after it, reads `degraded`; a compaction that worked, and
 * the same block above a later prompt, read `current`.
 */
const TOOLS = {
  opencode: { profile: createOpencodeProfile('1.18.33'), dir: 'opencode', version: '1.18.33' },
  kilo: { profile: createKiloProfile('7.7.7'), dir: 'kilo', version: '7.7.7' },
} as const;
type Tool = keyof typeof TOOLS;

const read = (tool: Tool, text: string) => ProfileResult.parse(TOOLS[tool].profile.parse({ text }));
const screens = (tool: Tool, scenario: string) =>
  recordedScreens(TOOLS[tool].dir, `${TOOLS[tool].version}/${scenario}`);
const lastScreen = (tool: Tool, scenario: string) => screens(tool, scenario).at(-1)!;

const TOO_LARGE = /┃ {2}\S.* too large to compact - /;
const FAILED: ReadonlyArray<[tool: Tool, scenario: string, type: string]> = [
  ['opencode', 'compact-context-length-exceeded', 'opencode_too_large_to_compact'],
  ['opencode', 'context-length-exceeded', 'opencode_too_large_to_compact'],
];

/** The rows of the error block's text line, in a real last frame. */
function errorRow(rows: readonly string[]): number {
  const at = rows.findIndex((l) => TOO_LARGE.test(l));
  if (at < 0) throw new Error('no error block');
  return at;
}

/** The prompt box's first row (the `┃` rows right above its bottom bar). */
function boxTop(rows: readonly string[]): number {
  let top = rows.findLastIndex((l) => /^\s*╹▀{10,}/.test(l));
  while (top > 0 && /^ {2}┃/.test(rows[top - 1]!)) top--;
  return top;
}

describe('opencode chat context: the real frames of the long conversations', () => {
  for (const [tool, scenario, type] of FAILED) {
    it(`${tool} ${scenario}: the failed compaction's block reads degraded (${type})`, () => {
      const all = screens(tool, scenario);
      const first = all.findIndex((t) => TOO_LARGE.test(t));
      expect(first, 'a frame with the error block').toBeGreaterThan(0);
      for (const t of all.slice(0, first)) {
        expect(read(tool, t).signals.chatContext).not.toBe('degraded');
      }
      const r = read(tool, all.at(-1)!);
      expect(r.signals.chatContext).toBe('degraded');
      expect(r.signals.degradedErrorType).toBe(type);
      // The compaction's footer keeps its duration, but the block says it failed: no success.
      expect(r.evidence.rule).toBe('error:other');
      expect(r.signals.successCandidate).toBe(false);
    });
  }

  it('context-near-full: a compaction that worked leaves the context current', () => {
    const all = screens('opencode', 'context-near-full');
    expect(all.some((t) => /▣ {2}Compaction · fake-model · \d/.test(t))).toBe(true);
    for (const t of all) expect(read('opencode', t).signals.chatContext).not.toBe('degraded');
    expect(read('opencode', all.at(-1)!).evidence.rule).toBe('finished');
  });

  it('compact-error-then-success: the failed block above a later prompt is history: current', () => {
    const text = lastScreen('opencode', 'compact-error-then-success');
    expect(TOO_LARGE.test(text)).toBe(true);
    const r = read('opencode', text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.evidence.rule).toBe('finished');
  });
});

describe('opencode chat context: variants of the real frames', () => {
  it('another message in the failed compaction block: degraded, opencode_compaction_failed', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FAILED), fillerWords, ([tool, scenario], message) => {
        const rows = lastScreen(tool, scenario).split('\n');
        rows[errorRow(rows)] = `  ┃  ${message}`;
        const r = read(tool, rows.join('\n'));
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe('opencode_compaction_failed');
      }),
      { numRuns: 50 },
    );
  });

  it('the message wrapped onto more block rows, at any width, keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fc.integer({ min: 20, max: 110 }),
        ([tool, scenario, type], width) => {
          const rows = lastScreen(tool, scenario).split('\n');
          const at = errorRow(rows);
          const text = rows[at]!.replace(/^ {2}┃ {2}/, '')
            .slice(0, 115)
            .trimEnd();
          const parts: string[] = [];
          for (let i = 0; i < text.length; i += width)
            parts.push(`  ┃  ${text.slice(i, i + width)}`);
          const screen = [...rows.slice(0, at), ...parts, ...rows.slice(at + 1)];
          const r = read(tool, screen.join('\n'));
          expect(r.signals.chatContext).toBe('degraded');
          // Cut mid-word, `too large to compact` may be split across rows: the reason may then
          // be the generic one, never current.
          expect([type, 'opencode_compaction_failed']).toContain(r.signals.degradedErrorType);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a later prompt, its reply and footer under the block: history, current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fillerWords,
        fillerWords,
        fc.integer({ min: 1, max: 59 }),
        ([tool, scenario], prompt, reply, secs) => {
          const rows = lastScreen(tool, scenario).split('\n');
          const top = boxTop(rows);
          const later = [
            '  ┃',
            `  ┃  ${prompt}`,
            '  ┃',
            '',
            `     ${reply}`,
            '',
            `     ▣  Build · fake-model · ${secs}.2s`,
            '',
          ];
          // The new rows push the screen up: the top rows scroll away.
          const screen = [...rows.slice(0, top), ...later, ...rows.slice(top)].slice(later.length);
          const r = read(tool, screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
          expect(r.evidence.rule).toBe('finished');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('the same fillerWords in a reply (not a block) are not the context', () => {
    for (const [tool, scenario] of FAILED) {
      const rows = lastScreen(tool, scenario).split('\n');
      const at = errorRow(rows);
      rows[at] = rows[at]!.replace(/^ {2}┃ {2}/, '     ');
      for (const r of [at - 1, at + 1]) if (/^ {2}┃\s*$/.test(rows[r]!)) rows[r] = '';
      const footer = rows.findIndex((l, i) => i > at && /▣ {2}Compaction/.test(l));
      rows[footer] = rows[footer]!.replace('Compaction', 'Build');
      const r = read(tool, rows.join('\n'));
      expect(r.signals.chatContext).toBe('current');
      expect(r.evidence.rule).toBe('finished');
    }
  });
});

describe('Kilo chat context: its real frames and variants of them', () => {
  it('its long-conversation recordings show no failed compaction: never degraded', () => {
    for (const scenario of [
      'context-near-full',
      'compact-context-length-exceeded',
      'context-length-exceeded',
    ]) {
      for (const t of screens('kilo', scenario)) {
        expect(read('kilo', t).signals.chatContext).not.toBe('degraded');
      }
    }
    const last = lastScreen('kilo', 'context-length-exceeded');
    expect(last).toMatch(/▣ {2}Compaction · fake-model · \d/);
    expect(read('kilo', last).evidence.rule).toBe('finished');
  });

  it("the compaction's summary replaced by an error block reads degraded, named for Kilo", () => {
    const rows = lastScreen('kilo', 'context-length-exceeded').split('\n');
    const footer = rows.findIndex((l) => /▣ {2}Compaction · /.test(l));
    // The sidebar fills the right of the rows: the transcript is their left part.
    const left = (l: string) => l.slice(0, 100).trim();
    const summary = rows.findLastIndex((l, i) => i < footer && left(l) !== '');
    expect(left(rows[summary]!)).toBe('Fake session');
    for (const [message, type] of [
      [
        'Conversation history too large to compact - exceeds model context limit',
        'kilo_too_large_to_compact',
      ],
      ['The server had an error while processing your request.', 'kilo_compaction_failed'],
    ] as const) {
      // Everything from the compaction's footer down to the box is dropped: its footer is last.
      const top = boxTop(rows);
      const screen = [
        ...rows.slice(0, summary),
        '  ┃',
        `  ┃  ${message}`,
        '  ┃',
        '',
        rows[footer]!,
        '',
        ...rows.slice(top),
      ];
      const r = read('kilo', screen.join('\n'));
      expect(r.signals.chatContext).toBe('degraded');
      expect(r.signals.degradedErrorType).toBe(type);
      expect(r.evidence.rule).toMatch(/^error:/);
    }
  });
});
