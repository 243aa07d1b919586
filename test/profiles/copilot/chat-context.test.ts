import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCopilotProfile } from '../../../src/profiles/copilot/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords, fillerWords, messageAt, overTheWindow } from '../wrapped.js';

/**
 * The chat context on Copilot CLI 1.0.102's long-conversation recordings (the window 100,000
 * tokens): the provider's refusal of a prompt too long for the window, next to the prompt, reads
 * `degraded`; a compaction that completed, and the same refusal above a later prompt, read
 * `current`.
 */
const profile = createCopilotProfile('1.0.102');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('copilot', `1.0.102/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const TYPE = 'copilot_context_length_exceeded';
const REFUSAL = /^ ✗ 400 This model's maximum context length is /;
const hasRefusal = (text: string) => text.split('\n').some((l) => REFUSAL.test(l));

const refusalOf = (text: string) => messageAt(text, REFUSAL, 3);
const contextMessage = overTheWindow.map(
  (words) => `400 ${words} Please reduce the length of the messages.`,
);

describe('copilot chat context: the real frames of 1.0.102', () => {
  for (const scenario of ['context-length-exceeded', 'context-all-refused']) {
    it(`${scenario}: the refusal next to the prompt reads degraded, the turn failed`, () => {
      const all = screens(scenario);
      const first = all.findIndex(hasRefusal);
      expect(first, 'a frame with the refusal').toBeGreaterThan(0);
      for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
      for (const t of all.slice(first)) {
        const r = read(t);
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(TYPE);
        expect(r.signals.successCandidate).toBe(false);
      }
      // The turn's outcome is its failure line, as before.
      expect(read(all.at(-1)!).signals.knownFailure?.status).toBe(400);
    });
  }

  for (const scenario of ['context-near-full', 'context-over-full']) {
    it(`${scenario}: a compaction that completed leaves the context current`, () => {
      const all = screens(scenario);
      expect(all.some((t) => /^ ● Compacting conversation history\.\.\.$/m.test(t))).toBe(true);
      expect(all.some((t) => /^ ● Compaction completed$/m.test(t))).toBe(true);
      for (const t of all) {
        const r = read(t);
        expect(r.signals.chatContext).not.toBe('degraded');
        expect(r.signals.degradedErrorType).toBeUndefined();
      }
      expect(read(lastScreen(scenario)).evidence.rule).toBe('finished');
    });
  }

  it('context-all-refused: the compaction refused too draws nothing of its own', () => {
    const text = lastScreen('context-all-refused');
    expect(text).toMatch(/^ ● Compacting conversation history\.\.\.$/m);
    expect(text).not.toMatch(/Compaction completed|Compaction failed/);
  });

  it('context-length-exceeded-then-success: the refusal above a later prompt is history', () => {
    const text = lastScreen('context-length-exceeded-then-success');
    expect(hasRefusal(text)).toBe(true);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.evidence.rule).toBe('finished');
  });
});

describe('copilot chat context: generated variants of the real refusal frame', () => {
  it('the refusal at any width and with any numbers keeps its reason', () => {
    fc.assert(
      fc.property(contextMessage, fc.integer({ min: 30, max: 250 }), (message, width) => {
        const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
        const screen = [
          ...rows.slice(0, at),
          ...wrapWords(message, width, ' ✗ ', '   '),
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(TYPE);
        expect(r.signals.knownFailure?.status).toBe(400);
      }),
      { numRuns: 200 },
    );
  });

  it("OpenAI's other wording of the refusal reads the same", () => {
    const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
    const message =
      '400 Your input exceeds the context window of this model. Please adjust your input and try again.';
    const screen = [
      ...rows.slice(0, at),
      ...wrapWords(message, 160, ' ✗ ', '   '),
      ...rows.slice(end),
    ];
    expect(read(screen.join('\n')).signals.degradedErrorType).toBe(TYPE);
  });

  it('another 400 in the same place is a failure, not the context', () => {
    fc.assert(
      fc.property(fillerWords, (tail) => {
        const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
        const screen = [...rows.slice(0, at), ` ✗ 400 ${tail}`, ...rows.slice(end)];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('current');
        expect(r.signals.knownFailure?.status).toBe(400);
      }),
      { numRuns: 50 },
    );
  });

  it('the refusal pushed into history by a later turn, however long, reads current', () => {
    fc.assert(
      fc.property(
        fillerWords,
        fc.array(fillerWords, { minLength: 1, maxLength: 20 }),
        (prompt, reply) => {
          const { rows, end } = refusalOf(lastScreen('context-length-exceeded'));
          const folder = rows.findLastIndex((l) => l.startsWith(' /tmp/'));
          const later = [
            '',
            ` ❯ ${prompt}`,
            '',
            ...reply.map((l, i) => (i === 0 ? ` ● ${l}` : `   ${l}`)),
          ];
          // The blank rows under the refusal give way to the later turn, so the box stays put.
          const tail = rows.slice(end, folder).slice(later.length);
          const screen = [...rows.slice(0, end), ...later, ...tail, ...rows.slice(folder)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('current');
          expect(r.signals.degradedErrorType).toBeUndefined();
          expect(r.signals.knownFailure).toBeNull();
          expect(r.evidence.rule).toBe('finished');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a reply quoting the refusal is not the context', () => {
    const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
    const quoted = rows.slice(at, end).map((l) => l.replace(/^ ✗ /, ' ● '));
    const r = read([...rows.slice(0, at), ...quoted, ...rows.slice(end)].join('\n'));
    expect(r.signals.chatContext).toBe('current');
    expect(r.evidence.rule).toBe('finished');
  });
});
