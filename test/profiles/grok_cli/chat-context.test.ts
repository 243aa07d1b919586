import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGrokCliProfile } from '../../../src/profiles/grok_cli/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';
import { wrapWords, fillerWords, messageAt, overTheWindow } from '../wrapped.js';

/**
 * The chat context on grok-cli 0.0.34's long-conversation recordings: the provider's refusal of
 * a prompt too long for the window, as the latest turn's error item, reads `degraded`; a reported
 * usage near a million tokens draws nothing, and the refusal above a later prompt reads `current`.
 */
const profile = createGrokCliProfile('0.0.34');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('grok_cli', `0.0.34/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const TYPE = 'grok_cli_context_length_exceeded';
const ITEM = '  ⏺ Sorry, I encountered an error: ';
const REFUSAL = /^ {2}⏺ Sorry, I encountered an error: Grok API error: 400 This model's maximum/;
const hasRefusal = (text: string) => text.split('\n').some((l) => REFUSAL.test(l));

const refusalOf = (text: string) => messageAt(text, REFUSAL, 4);
const contextMessage = overTheWindow.map(
  (words) => `Grok API error: 400 ${words} Please reduce the length of the messages.`,
);

describe('grok-cli chat context: the real frames of 0.0.34', () => {
  it('context-length-exceeded: the refusal next to the prompt reads degraded, the turn failed', () => {
    const all = screens('context-length-exceeded');
    const first = all.findIndex(hasRefusal);
    expect(first, 'a frame with the refusal').toBeGreaterThan(0);
    for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
    for (const t of all.slice(first)) {
      const r = read(t);
      expect(r.signals.chatContext).toBe('degraded');
      expect(r.signals.degradedErrorType).toBe(TYPE);
      expect(r.signals.successCandidate).toBe(false);
    }
    expect(read(all.at(-1)!).signals.knownFailure?.status).toBe(400);
  });

  it('context-near-full: a usage near a million tokens draws nothing, current', () => {
    for (const t of screens('context-near-full')) {
      expect(read(t).signals.chatContext).not.toBe('degraded');
    }
    expect(read(lastScreen('context-near-full')).evidence.rule).toBe('finished');
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

describe('grok-cli chat context: generated variants of the real refusal frame', () => {
  it('the refusal at any width and with any numbers keeps its reason', () => {
    fc.assert(
      fc.property(contextMessage, fc.integer({ min: 60, max: 250 }), (message, width) => {
        const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
        const screen = [
          ...rows.slice(0, at),
          ...wrapWords(message, width, ITEM, '    '),
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

  it('another API error in the same place is a failure, not the context', () => {
    fc.assert(
      fc.property(fc.constantFrom(400, 429, 500), fillerWords, (status, tail) => {
        const { rows, at, end } = refusalOf(lastScreen('context-length-exceeded'));
        const item = `${ITEM}Grok API error: ${status} ${tail}`;
        const r = read([...rows.slice(0, at), item, ...rows.slice(end)].join('\n'));
        expect(r.signals.chatContext).toBe('current');
        expect(r.signals.knownFailure?.status).toBe(status);
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
          const box = rows.findLastIndex((l) => /^ {2}╭─+╮$/.test(l));
          const later = [
            '',
            `  > ${prompt}`,
            '',
            ...reply.map((l, i) => (i === 0 ? `  ⏺ ${l}` : `    ${l}`)),
          ];
          const screen = [...rows.slice(0, end), ...later, '', ...rows.slice(box)];
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
    const quoted = [
      `  ⏺ The last error said: ${rows[at]!.slice(ITEM.length)}`,
      ...rows.slice(at + 1, end),
    ];
    const r = read([...rows.slice(0, at), ...quoted, ...rows.slice(end)].join('\n'));
    expect(r.signals.chatContext).toBe('current');
    expect(r.evidence.rule).toBe('finished');
  });
});
