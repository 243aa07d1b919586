import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQwenCodeProfile } from '../../../src/profiles/qwen_code/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords, fillerWords, messageAt } from '../wrapped.js';

/**
 * The chat context on Qwen Code 0.24.4's real long-conversation recordings (the usage reported
 * near the 200,000 tokens it takes as the window): a prompt still over the hard limit after
 * compaction, and the provider's refusal of a prompt over the window, read `degraded` with their
 * reason; the warnings, the compactions that worked and the same error above a later prompt read
 * `current`.
 */
const profile = createQwenCodeProfile('0.24.4');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('qwen_code', `0.24.4/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const HARD = /^ {2}✕ \[API Error: Context is too large to send safely/;
const REFUSED = /^ {2}✕ \[API Error: 400 This model's maximum context length/;
const DEGRADED: ReadonlyArray<[scenario: string, type: string, error: RegExp]> = [
  ['context-hard-limit', 'qwen_context_too_large_after_compression', HARD],
  ['context-length-exceeded', 'qwen_context_length_exceeded', REFUSED],
];

/** 0.24's reply glyph: U+25C6 and the text-presentation selector. */
const REPLY_GLYPH = '\u25c6\ufe0e';

const rowOf = (text: string, error: RegExp) => text.split('\n').findIndex((l) => error.test(l));

const errorOf = (text: string, error: RegExp) => messageAt(text, error, 4);

describe("qwen_code chat context: the real frames of 0.24.4's long conversations", () => {
  for (const [scenario, type, error] of DEGRADED) {
    it(`${scenario}: the error next to the prompt reads degraded (${type})`, () => {
      const all = screens(scenario);
      const first = all.findIndex((t) => rowOf(t, error) >= 0);
      expect(first, 'a frame with the error').toBeGreaterThan(0);
      for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
      for (const t of all.slice(first)) {
        const r = read(t);
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(type);
        // The turn's outcome is its error line, as before.
        expect(r.signals.knownFailure).not.toBeNull();
        expect(r.signals.successCandidate).toBe(false);
      }
    });
  }

  for (const [scenario, shown] of [
    ['context-near-full', /★ Context is getting full\. Use \/compress to free up space\./],
    ['context-length-recovered', /IMPORTANT: This conversation approached the input token limit/],
  ] as const) {
    it(`${scenario}: the warning and a compaction that worked stay current`, () => {
      const all = screens(scenario);
      expect(all.some((t) => shown.test(t))).toBe(true);
      expect(all.some((t) => /Context \d+(?:\.\d)?% used/.test(t))).toBe(true);
      for (const t of all) expect(read(t).signals.chatContext).not.toBe('degraded');
      expect(read(lastScreen(scenario)).evidence.rule).toBe('finished');
    });
  }

  it('context-hard-limit: the warning before it (`★ Context near hard limit`) is not degraded', () => {
    const all = screens('context-hard-limit');
    const warned = all.filter((t) => /★ Context near hard limit/.test(t) && rowOf(t, HARD) < 0);
    expect(warned.length).toBeGreaterThan(0);
    for (const t of warned) expect(read(t).signals.chatContext).toBe('current');
  });

  it('context-length-exceeded-then-success: the error above a later prompt is history: current', () => {
    const text = lastScreen('context-length-exceeded-then-success');
    expect(rowOf(text, REFUSED)).toBeGreaterThan(0);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.evidence.rule).toBe('finished');
  });
});

describe('qwen_code chat context: generated variants of the real frames', () => {
  it('the same error wrapped at any width keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DEGRADED),
        fc.integer({ min: 40, max: 250 }),
        ([scenario, type, error], width) => {
          const { rows, at, end } = errorOf(lastScreen(scenario), error);
          const text = rows
            .slice(at, end)
            .map((l) => l.trim())
            .join(' ');
          const screen = [
            ...rows.slice(0, at),
            ...wrapWords(text, width, '  ', '    '),
            ...rows.slice(end),
          ];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('degraded');
          expect(r.signals.degradedErrorType).toBe(type);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('other token counts and limits read the same', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 2_000_000 }),
        fc.integer({ min: 1000, max: 2_000_000 }),
        (tokens, limit) => {
          const hard = errorOf(lastScreen('context-hard-limit'), HARD);
          const hardText =
            `✕ [API Error: Context is too large to send safely after automatic compression. ` +
            `Estimated prompt tokens: ${tokens}; hard limit: ${limit}; compression status: ` +
            `COMPRESSED. Start a new session or reduce the resumed history before continuing.] ` +
            `(Press Ctrl+Y to retry)`;
          const r1 = read(
            [
              ...hard.rows.slice(0, hard.at),
              ...wrapWords(hardText, 160, '  ', '    '),
              ...hard.rows.slice(hard.end),
            ].join('\n'),
          );
          expect(r1.signals.degradedErrorType).toBe('qwen_context_too_large_after_compression');
          const refused = errorOf(lastScreen('context-length-exceeded'), REFUSED);
          const refusedText =
            `✕ [API Error: 400 This model's maximum context length is ${limit} tokens. However, ` +
            `your messages resulted in ${tokens} tokens. Please reduce the length of the messages.] ` +
            `(Press Ctrl+Y to retry)`;
          const r2 = read(
            [
              ...refused.rows.slice(0, refused.at),
              ...wrapWords(refusedText, 160, '  ', '    '),
              ...refused.rows.slice(refused.end),
            ].join('\n'),
          );
          expect(r2.signals.degradedErrorType).toBe('qwen_context_length_exceeded');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('an API error of another kind is a failure, not the context', () => {
    fc.assert(
      fc.property(fillerWords, (message) => {
        const { rows, at, end } = errorOf(lastScreen('context-length-exceeded'), REFUSED);
        const screen = [
          ...rows.slice(0, at),
          `  ✕ [API Error: 400 ${message}] (Press Ctrl+Y to retry)`,
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('current');
        expect(r.signals.knownFailure).not.toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it('the error in an older turn, however deep in the scrollback, reads current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DEGRADED),
        fillerWords,
        fc.array(fillerWords, { minLength: 0, maxLength: 20 }),
        (f, prompt, reply) => {
          const [scenario, , error] = f;
          const { rows, end } = errorOf(lastScreen(scenario), error);
          // The prompt box: its line `>   Type your message…` under a rule.
          const top = rows.findLastIndex((l) => l.startsWith('> ')) - 1;
          const later = [
            '',
            `  > ${prompt}`,
            '',
            `  ${REPLY_GLYPH} ${reply[0] ?? 'Done.'}`,
            ...reply.slice(1).map((l) => `    ${l}`),
            '',
          ];
          const screen = [...rows.slice(0, end), ...later, ...rows.slice(top)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
          expect(r.evidence.rule).toBe('finished');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a reply that quotes the error (indented, in the reply) is not the context', () => {
    for (const [scenario, , error] of DEGRADED) {
      const { rows, at, end } = errorOf(lastScreen(scenario), error);
      const quoted = rows.slice(at, end).map((l) => `    ${l.trim()}`);
      const screen = [
        ...rows.slice(0, at),
        `  ${REPLY_GLYPH} Here is what the CLI printed:`,
        ...quoted,
        ...rows.slice(end),
      ];
      const r = read(screen.join('\n'));
      expect(r.signals.chatContext).toBe('current');
    }
  });
});
