import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGeminiCliProfile } from '../../../src/profiles/gemini_cli/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords, fillerWords, messageAt } from '../wrapped.js';

/**
 * The chat context on Gemini CLI 0.61.0's real long-conversation recordings (the usage reported
 * near the 1,048,576-token window): a prompt that no longer fits, a failed `/compress` and the
 * API's input-token error next to the prompt read `degraded` with their reason; the same notice
 * above a later prompt, and a compression that worked, read `current`.
 */
const profile = createGeminiCliProfile('0.61.0');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('gemini_cli', scenario);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const OVERFLOW = /^ℹ Sending this message \(/;
const DEGRADED: ReadonlyArray<
  [scenario: string, type: string, notice: RegExp, failure: string | null]
> = [
  ['context-window-overflow', 'gemini_context_window_will_overflow', OVERFLOW, null],
  [
    'compress-context-length-exceeded',
    'gemini_compress_input_token_count_exceeded',
    /^✕ Failed to compress chat history: /,
    null,
  ],
  [
    'context-length-exceeded',
    'gemini_input_token_count_exceeded',
    /^✕ \[API Error: .*The input token count/,
    'request_rejected',
  ],
];

const rowOf = (text: string, notice: RegExp) => text.split('\n').findIndex((l) => notice.test(l));

const noticeOf = (text: string, notice: RegExp) => messageAt(text, notice, 2);

describe("gemini_cli chat context: the real frames of 0.61.0's long conversations", () => {
  for (const [scenario, type, notice, failure] of DEGRADED) {
    it(`${scenario}: the notice next to the prompt reads degraded (${type})`, () => {
      const all = screens(scenario);
      const first = all.findIndex((t) => rowOf(t, notice) >= 0);
      expect(first, 'a frame with the notice').toBeGreaterThan(0);
      for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
      for (const t of all.slice(first)) {
        const r = read(t);
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(type);
        // The turn's outcome is its own: the API's error is a failure, the other notices none.
        expect(r.signals.knownFailure?.kind ?? null).toBe(failure);
        expect(r.signals.successCandidate).toBe(false);
      }
    });
  }

  it('context-window-overflow: the prompt kept in the box is a draft, the CLI takes input', () => {
    const r = read(lastScreen('context-window-overflow'));
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.chatContext).toBe('degraded');
    expect(r.evidence.rule).not.toBe('finished');
  });

  it('context-near-full: a compression that worked (`ℹ Context compressed from 57% to 0%.`) stays current', () => {
    const all = screens('context-near-full');
    expect(all.some((t) => /^ℹ Context compressed from 57% to 0%\./m.test(t))).toBe(true);
    for (const t of all) {
      const r = read(t);
      expect(r.signals.chatContext).not.toBe('degraded');
      expect(r.signals.degradedErrorType).toBeUndefined();
    }
    expect(read(lastScreen('context-near-full')).evidence.rule).toBe('finished');
  });

  it('context-window-overflow-then-compress: the notice above later prompts is history: current', () => {
    const all = screens('context-window-overflow-then-compress');
    const text = all.at(-1)!;
    expect(rowOf(text, OVERFLOW)).toBeGreaterThan(0);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.evidence.rule).toBe('finished');
    // `/compress`'s result under its echo is no reply: the frame that shows it has no outcome,
    // and the notice above that echo is already history.
    const compressed = all.find(
      (t) =>
        /^✦ Chat history compressed from 1048570 to \d+ tokens\.$/m.test(t) && !/Try again/.test(t),
    );
    expect(compressed).toBeDefined();
    const c = read(compressed!);
    expect(c.signals.chatContext).toBe('current');
    expect(c.evidence.rule).not.toBe('finished');
  });
});

describe('gemini_cli chat context: generated variants of the real frames', () => {
  it('the same notice wrapped at any width keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DEGRADED),
        fc.integer({ min: 40, max: 250 }),
        ([scenario, type, notice], width) => {
          const { rows, at, end } = noticeOf(lastScreen(scenario), notice);
          const text = rows
            .slice(at, end)
            .map((l) => l.trim())
            .join(' ');
          const screen = [
            ...rows.slice(0, at),
            ...wrapWords(text, width, '', '  '),
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

  it('other token counts read the same', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2_000_000 }),
        fc.nat({ max: 2_000_000 }),
        fc.boolean(),
        (asked, left, advice) => {
          const { rows, at, end } = noticeOf(lastScreen('context-window-overflow'), OVERFLOW);
          const text =
            `ℹ Sending this message (${asked} tokens) might exceed the context window limit ` +
            `(${left.toLocaleString('en-US')} tokens left).` +
            (advice
              ? ' Please try reducing the size of your message or use the /compress command to compress the chat history.'
              : '');
          const screen = [
            ...rows.slice(0, at),
            ...wrapWords(text, 118, '', '  '),
            ...rows.slice(end),
          ];
          const r = read(screen.join('\n'));
          expect(r.signals.degradedErrorType).toBe('gemini_context_window_will_overflow');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a failed /compress with a message nobody has seen is degraded: gemini_compress_failed', () => {
    fc.assert(
      fc.property(fillerWords, (message) => {
        const { rows, at, end } = noticeOf(
          lastScreen('compress-context-length-exceeded'),
          /^✕ Failed to compress chat history: /,
        );
        const screen = [
          ...rows.slice(0, at),
          `✕ Failed to compress chat history: ${message}`,
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe('gemini_compress_failed');
      }),
      { numRuns: 50 },
    );
  });

  it('an API error of another kind is a failure, not the context', () => {
    const { rows, at, end } = noticeOf(lastScreen('context-length-exceeded'), /^✕ \[API Error: /);
    const screen = [
      ...rows.slice(0, at),
      '✕ [API Error: {"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}]',
      ...rows.slice(end),
    ];
    const r = read(screen.join('\n'));
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.knownFailure).not.toBeNull();
  });

  it('the notice in an older turn, however deep in the scrollback, reads current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DEGRADED),
        fillerWords,
        fc.array(fillerWords, { minLength: 0, maxLength: 20 }),
        (f, prompt, reply) => {
          const [scenario, , notice] = f;
          const { rows, end } = noticeOf(lastScreen(scenario), notice);
          const box = rows.findLastIndex((l) => /^ > /.test(l)) - 1;
          const bar = '▄'.repeat(120);
          const under = '▀'.repeat(120);
          // A later turn under the notice: its echo and its reply, then the same status area.
          const later = [
            '',
            bar,
            ` > ${prompt}`,
            under,
            '',
            `✦ ${reply[0] ?? 'Done.'}`,
            ...reply.slice(1).map((l) => `  ${l}`),
            '',
          ];
          const status = rows.slice(0, box).findLastIndex((l) => /^─{10,}$/.test(l));
          const screen = [...rows.slice(0, end), ...later, ...rows.slice(status - 2)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
          expect(r.evidence.rule).toBe('finished');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a reply that quotes the notice (indented, in the reply) is not the context', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DEGRADED), (f) => {
        const [scenario, , notice] = f;
        const { rows, at, end } = noticeOf(lastScreen(scenario), notice);
        const quoted = rows.slice(at, end).map((l) => `  ${l.trim()}`);
        const screen = [
          ...rows.slice(0, at),
          '✦ Here is what the CLI printed:',
          ...quoted,
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('current');
      }),
      { numRuns: 10 },
    );
  });
});
