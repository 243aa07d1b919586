import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClineProfile } from '../../../src/profiles/cline/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords, fillerWords, messageAt, overTheWindow } from '../wrapped.js';

/**
 * The chat context on Cline 3.0.65's long-conversation recordings: its error item saying the
 * request exceeds the model's context window, as the latest turn's end, reads `degraded`; a usage
 * figure near or past the window in the footer, and the error above a later prompt, read
 * `current`.
 */
const profile = createClineProfile('3.0.65');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('cline', `3.0.65/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const NOTHING = 'cline_context_window_exceeded_nothing_to_compact';
const ERROR = /^ \*Error: The request exceeds the model's context window/;
const hasError = (text: string) => text.split('\n').some((l) => ERROR.test(l));

/** Cline's three messages for an exceeded window, each with the provider's words after it. */
const MESSAGES: ReadonlyArray<[type: string, message: string]> = [
  [
    NOTHING,
    "The request exceeds the model's context window and there is no conversation history to compact — the system prompt, tools, and current input alone are too large. Reduce attached content or switch to a model with a larger context window.",
  ],
  [
    'cline_context_window_exceeded_after_compaction',
    "The conversation still exceeds the model's context window after compacting it. Start a new session or switch to a model with a larger context window.",
  ],
  [
    'cline_context_window_exceeded',
    "The conversation exceeds the model's context window. Compact the conversation, start a new session, or switch to a model with a larger context window.",
  ],
];

const errorOf = (text: string) => messageAt(text, ERROR, 2);
const provider = overTheWindow.map((words) => `(provider reported: ${words})`);

describe('cline chat context: the real frames of 3.0.65', () => {
  it('context-length-exceeded: the error item next to the prompt reads degraded, the turn failed', () => {
    const all = screens('context-length-exceeded');
    const first = all.findIndex(hasError);
    expect(first, 'a frame with the error').toBeGreaterThan(0);
    // The recovery Cline tried is drawn above the error, in the same turn.
    expect(all[first]).toMatch(/^ \* context window exceeded — compacting and retrying$/m);
    for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
    for (const t of all.slice(first)) {
      const r = read(t);
      expect(r.signals.chatContext).toBe('degraded');
      expect(r.signals.degradedErrorType).toBe(NOTHING);
      expect(r.signals.successCandidate).toBe(false);
    }
    expect(read(all.at(-1)!).signals.knownFailure).not.toBeNull();
  });

  for (const scenario of ['context-near-full', 'context-over-full']) {
    it(`${scenario}: the usage figure in the footer is not the context's trouble`, () => {
      const all = screens(scenario);
      expect(all.some((t) => /fake-model \((?:121,600|140,800)\)/.test(t))).toBe(true);
      for (const t of all) expect(read(t).signals.chatContext).not.toBe('degraded');
    });
  }

  it('context-length-exceeded-then-success: the error above a later prompt is history', () => {
    const text = lastScreen('context-length-exceeded-then-success');
    expect(hasError(text)).toBe(true);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.signals.knownFailure).toBeNull();
  });
});

describe('cline chat context: generated variants of the real error frame', () => {
  it('each of its messages, at any width and with any numbers, keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MESSAGES),
        provider,
        fc.integer({ min: 60, max: 250 }),
        ([type, message], reported, width) => {
          const { rows, at, end } = errorOf(lastScreen('context-length-exceeded'));
          const item = wrapWords(`${message} ${reported}`, width, ' *Error: ', '  ');
          const r = read([...rows.slice(0, at), ...item, ...rows.slice(end)].join('\n'));
          expect(r.signals.chatContext).toBe('degraded');
          expect(r.signals.degradedErrorType).toBe(type);
          expect(r.signals.knownFailure).not.toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('another error in the same place is a failure, not the context', () => {
    fc.assert(
      fc.property(fillerWords, (tail) => {
        const { rows, at, end } = errorOf(lastScreen('context-length-exceeded'));
        const item = ` * Error: ${tail} (HTTP 500)`;
        const r = read([...rows.slice(0, at), item, ...rows.slice(end)].join('\n'));
        expect(r.signals.chatContext).toBe('current');
        expect(r.signals.knownFailure).not.toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it('the error pushed into history by a later turn, however long, reads current', () => {
    fc.assert(
      fc.property(
        fillerWords,
        fc.array(fillerWords, { minLength: 1, maxLength: 20 }),
        (prompt, reply) => {
          const { rows, end } = errorOf(lastScreen('context-length-exceeded'));
          const rule = rows.findIndex((l, i) => i >= end && /^─{20,}/.test(l));
          const later = [
            '',
            ` ❯ ${prompt}`,
            '',
            ...reply.map((l, i) => (i === 0 ? ` * ${l}` : `   ${l}`)),
          ];
          const screen = [...rows.slice(0, end), ...later, '', ...rows.slice(rule)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
          expect(r.signals.knownFailure).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a reply quoting the error is not the context', () => {
    const { rows, at, end } = errorOf(lastScreen('context-length-exceeded'));
    const quoted = [
      ` * The last error said: ${rows[at]!.slice(' *'.length)}`,
      ...rows.slice(at + 1, end),
    ];
    const r = read([...rows.slice(0, at), ...quoted, ...rows.slice(end)].join('\n'));
    expect(r.signals.chatContext).toBe('current');
  });
});
