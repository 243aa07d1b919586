import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodexProfile } from '../../../src/profiles/codex/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens } from '../real-frame.js';

/**
 * The chat context on Codex 0.171.0's real long-context recordings (the fake usage near a
 * 100,000-token window): the error cell of a failed compaction, or of a prompt that overflows the
 * window, next to the prompt reads `degraded` with its reason; the same cell in an older turn,
 * and a compaction that worked, read `current`.
 */
const profile = createCodexProfile('0.171.0');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = (scenario: string) => recordedScreens('codex', `0.171.0/${scenario}`);
const lastScreen = (scenario: string) => screens(scenario).at(-1)!;

const COMPACT_CELL = /^■ Error running remote compact task: /;
const FAILED: ReadonlyArray<[scenario: string, type: string, kind: string, cell: RegExp]> = [
  ['compact-error-500', 'codex_remote_compact_server_error', 'server_error', COMPACT_CELL],
  [
    'compact-stream-disconnected',
    'codex_remote_compact_stream_disconnected',
    'connection_failed',
    COMPACT_CELL,
  ],
  [
    'compact-context-length-exceeded',
    'codex_remote_compact_context_length_exceeded',
    'other',
    COMPACT_CELL,
  ],
  ['compact-unknown-parameter', 'codex_remote_compact_unknown_parameter', 'other', COMPACT_CELL],
  [
    'context-length-exceeded',
    'codex_context_length_exceeded',
    'other',
    /^■ Codex ran out of room in the model's context window/,
  ],
];

const hasCell = (text: string, cell: RegExp) => text.split('\n').some((l) => cell.test(l));

describe("codex chat context: the real frames of 0.171.0's long conversations", () => {
  for (const [scenario, type, kind, cell] of FAILED) {
    it(`${scenario}: the error cell next to the prompt reads degraded (${type})`, () => {
      const all = screens(scenario);
      const first = all.findIndex((t) => hasCell(t, cell));
      expect(first, 'a frame with the error cell').toBeGreaterThan(0);
      // Before the cell: never degraded.
      for (const t of all.slice(0, first)) expect(read(t).signals.chatContext).not.toBe('degraded');
      for (const t of all.slice(first)) {
        const r = read(t);
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(type);
        // The turn's own outcome is its error cell, as before: the failure, never a success.
        expect(r.signals.knownFailure?.kind).toBe(kind);
        expect(r.signals.successCandidate).toBe(false);
      }
    });
  }

  it('compact-auto: a compaction that worked (`• Context compacted`) leaves the context current', () => {
    const all = screens('compact-auto');
    expect(all.some((t) => /^• Context compacted\b/m.test(t))).toBe(true);
    expect(all.some((t) => /^• Compacting context \(/m.test(t))).toBe(true);
    for (const t of all) {
      const r = read(t);
      expect(r.signals.chatContext).not.toBe('degraded');
      expect(r.signals.degradedErrorType).toBeUndefined();
    }
    expect(read(lastScreen('compact-auto')).evidence.rule).toBe('finished');
  });

  it('compact-error-then-success: the old error cell above a later prompt is history: current', () => {
    const text = lastScreen('compact-error-then-success');
    expect(hasCell(text, COMPACT_CELL)).toBe(true);
    const r = read(text);
    expect(r.signals.chatContext).toBe('current');
    expect(r.signals.degradedErrorType).toBeUndefined();
    expect(r.evidence.rule).toBe('finished');
  });

  it('the compacting status line reads working, not degraded', () => {
    const t = screens('compact-error-500').find((s) => /^• Compacting context \(/m.test(s));
    if (t === undefined) return; // drawn between two polls in this recording
    const r = read(t);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.chatContext).toBe('current');
  });
});

/** The rows of a screen, and where the error cell and its wrapped lines stand. */
function cellOf(text: string, cell: RegExp): { rows: string[]; at: number; end: number } {
  const rows = text.split('\n');
  const at = rows.findIndex((l) => cell.test(l));
  if (at < 0) throw new Error('no error cell on this screen');
  let end = at + 1;
  while (end < rows.length && rows[end]!.trim() !== '') end++;
  return { rows, at, end };
}

/** Words wrapped to `width` columns, as Codex wraps an error cell (no indent). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') out.push(line);
  return out;
}

const words = fc
  .array(fc.constantFrom('alpha', 'beta', 'gamma', 'request', 'failed', 'item', 'x7', 'ok'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((w) => w.join(' '));

describe('codex chat context: generated variants of the real error frames', () => {
  it('the same message wrapped at any width keeps its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        fc.integer({ min: 30, max: 250 }),
        ([scenario, type, , cell], width) => {
          const { rows, at, end } = cellOf(lastScreen(scenario), cell);
          const message = rows.slice(at, end).join(' ');
          const screen = [...rows.slice(0, at), ...wrap(message, width), ...rows.slice(end)];
          const r = read(screen.join('\n'));
          expect(r.signals.chatContext).toBe('degraded');
          expect(r.signals.degradedErrorType).toBe(type);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('any number of blank rows between the cell and the prompt: still next to it, degraded', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FAILED), fc.integer({ min: 0, max: 40 }), (f, blanks) => {
        const [scenario, type, , cell] = f;
        const { rows, end } = cellOf(lastScreen(scenario), cell);
        const screen = [
          ...rows.slice(0, end),
          ...Array<string>(blanks).fill(''),
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe(type);
      }),
      { numRuns: 100 },
    );
  });

  it('a compaction error with a message nobody has seen is degraded, reason unknown', () => {
    fc.assert(
      fc.property(words, (message) => {
        const { rows, at, end } = cellOf(lastScreen('compact-error-500'), COMPACT_CELL);
        const screen = [
          ...rows.slice(0, at),
          `■ Error running remote compact task: ${message}`,
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('degraded');
        expect(r.signals.degradedErrorType).toBe('unknown');
      }),
      { numRuns: 100 },
    );
  });

  it('the cell in an older turn, however deep in the scrollback, reads current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILED),
        words,
        fc.array(words, { minLength: 0, maxLength: 30 }),
        (f, prompt, reply) => {
          const [scenario, , , cell] = f;
          const { rows, end } = cellOf(lastScreen(scenario), cell);
          const composer = rows.findLastIndex((l) => l.startsWith('› '));
          // A later turn under the error: its echo, its reply, its summary; then the same prompt box.
          const later = [
            '',
            '',
            `› ${prompt}`,
            '',
            '',
            `• ${reply[0] ?? 'Done.'}`,
            ...reply.slice(1).map((l) => `  ${l}`),
            '',
            '  Worked for 2s • 22:20',
            '',
          ];
          const screen = [...rows.slice(0, end), ...later, ...rows.slice(composer)];
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

  it('a reply that quotes the cell (indented, in the reply) is not the context', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FAILED), (f) => {
        const [scenario, , , cell] = f;
        const { rows, at, end } = cellOf(lastScreen(scenario), cell);
        const quoted = rows.slice(at, end).map((l, i) => (i === 0 ? `• ${l}` : `  ${l}`));
        const screen = [
          ...rows.slice(0, at),
          ...quoted,
          '',
          '  Worked for 2s • 22:20',
          ...rows.slice(end),
        ];
        const r = read(screen.join('\n'));
        expect(r.signals.chatContext).toBe('current');
        expect(r.evidence.rule).toBe('finished');
      }),
      { numRuns: 20 },
    );
  });
});
