import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { ToolProfile } from '../../src/profiles/types.js';
import type { ProfileResult } from '../../src/schemas/signals.js';
import { FIXTURES, recordingNames } from '../replay/ground-truth.js';

const TOOLS = [
  'claude_code',
  'codex',
  'gemini_cli',
  'opencode',
  'kilo',
  'qwen_code',
  'pi',
  'cline',
  'copilot',
  'grok_cli',
];

/** The glyphs of the common spinner sets; '' is no glyph at all. */
export const GLYPHS = [
  ...'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏', // braille dots
  ...'|/-\\', // line
  '.',
  '..',
  '...', // dots (Qwen Code in tmux)
  ...'●○◐◓', // circles
  ...'·✢✳✶✻✽', // Claude Code's stars
  '',
];

/**
 * What a screen reader's view draws where the glyph stands (Gemini CLI and Qwen Code:
 * `responding`, `loading` while a tool waits), and a word no CLI draws there.
 */
export const SCREEN_READER_WORDS = ['responding', 'loading', 'pondering'];

/** Every replacement of the glyph a variant may make. */
const REPLACEMENTS = [...GLYPHS, ...SCREEN_READER_WORDS];

/** A line the CLI draws while it works: a glyph (or none), then the phrase and its hints. */
const ACTIVITY_LINE =
  /^(\s*)([\u2800-\u28ff]|[|/\\\-●○◐◓◉◎·✢✳✶✻✽•◦⊶⊷]|\.{1,3}|[⬝■]{8}|responding|loading)?(\s+)(.*(?:\besc(?: esc)? (?:to )?(?:cancel|interrupt)\b|\bescape to cancel\b|\bWorking\b|[↑↓] ?[\d.,]+k? tokens|\(\d+s\b|(?:\.\.\.|…) ?\().*)$/;
const ESCAPES = /\s*[·•,]?\s*\besc(?:ape)?(?: esc)? (?:to )?(?:cancel|interrupt)\b\s*[·•,]?/g;
/** The phrase: the words after the glyph, up to its ellipsis, parenthesis or separator. */
const PHRASE = /^[A-Za-z][A-Za-z' -]*?(?=\.\.\.|…| \(| ·|$)/;
const UNSEEN_PHRASE = 'Zorbling the quux';

interface Variant {
  glyph: string | null;
  dropEscapes: boolean;
  newPhrase: boolean;
}

/** A real frame with every activity line changed as the variant says. */
function variantOf(text: string, v: Variant): string {
  return text
    .split('\n')
    .map((row) => {
      const m = ACTIVITY_LINE.exec(row);
      if (!m) return row;
      const [, indent = '', glyph, gap = '', rest = ''] = m;
      let body = rest;
      if (v.dropEscapes)
        body = body
          .replace(ESCAPES, ' ')
          .replace(/\(\s+/, '(')
          .replace(/\s+\)/, ')')
          .replace(/\s*\(\)/, '');
      if (v.newPhrase) body = body.replace(PHRASE, UNSEEN_PHRASE);
      const g = v.glyph ?? glyph ?? '';
      // Without a glyph the phrase keeps the column where the glyph's gap ended.
      return glyph === undefined || g !== '' ? `${indent}${g}${gap}${body}` : `${indent}${body}`;
    })
    .join('\n');
}

/**
 * The variant still draws something of the working line: a hint, a counter, or a phrase with an
 * ellipsis. A variant that removed every mark (say, the only hint of a frame whose spinner line
 * has scrolled away) leaves a screen that truly shows nothing running; it is not generated.
 */
function showsActivity(text: string): boolean {
  return text
    .split('\n')
    .some((row) => ACTIVITY_LINE.test(row) || /\S.*(?:\.\.\.|…)\s*$/.test(row));
}

/** Working (the profile names a reason) or asking (a dialog holds the agent). */
function workingOrAsking(r: ProfileResult): boolean {
  return (
    r.surface.businessState === 'awaiting_operator' ||
    (r.surface.businessState === 'working' && r.signals.activeReasons.length > 0)
  );
}

/**
 * Idle (the prompt box free for a prompt, or ready posture) or a success candidate: what a variant
 * of a working or asking frame must never read as.
 */
function readsIdle(r: ProfileResult): boolean {
  return (
    (r.surface.businessState === 'idle' && r.surface.inputMode === 'freeform') ||
    r.signals.successCandidate ||
    r.signals.readyPosture === 'yes'
  );
}

interface Sample {
  tool: string;
  file: string;
  profile: ToolProfile;
  text: string;
  /** The profile's rule on the original frame. */
  rule: string;
}

/**
 * Every distinct recorded frame of every CLI in which the CLI was working or asking, as the
 * tool's profile reads the original frame (a frame it reads idle is left out: it has nothing to
 * vary), and which holds an activity line to vary.
 */
function samples(): Sample[] {
  const out: Sample[] = [];
  for (const tool of TOOLS) {
    for (const file of recordingNames(tool).map((name) => `${name}.jsonl`)) {
      const lines = readFileSync(`${FIXTURES}${tool}/${file}`, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { type: string; text?: string; toolVersion?: string });
      const profile = getProfile(tool, lines[0]?.toolVersion);
      const seen = new Set<string>();
      for (const l of lines) {
        if (l.type !== 'frame' || typeof l.text !== 'string' || seen.has(l.text)) continue;
        seen.add(l.text);
        if (!l.text.split('\n').some((row) => ACTIVITY_LINE.test(row))) continue;
        const r = profile.parse({ text: l.text });
        if (workingOrAsking(r))
          out.push({ tool, file, profile, text: l.text, rule: r.evidence.rule });
      }
    }
  }
  return out;
}

const ALL = samples();
const RUNS = 1500;

describe('variants of real working and asking frames never read idle', () => {
  it('has frames of every CLI', () => {
    for (const tool of TOOLS)
      expect(
        ALL.some((s) => s.tool === tool),
        tool,
      ).toBe(true);
  });

  // Gemini CLI and Qwen Code under a screen reader: the word where the glyph stands, plain lines.
  const screenReader = ALL.filter(
    (s) => s.file.startsWith('screen-reader-') && s.rule.startsWith('working:'),
  );
  const SCREEN_READER_RUNS = 500;

  it('has screen-reader frames of Gemini CLI and Qwen Code', () => {
    for (const tool of ['gemini_cli', 'qwen_code'])
      expect(screenReader.filter((s) => s.tool === tool).length, tool).toBeGreaterThan(10);
    // The variants change them: the word is replaced, the hint dropped, the phrase renamed.
    const s = screenReader.find((f) => f.tool === 'gemini_cli')!;
    const v = variantOf(s.text, { glyph: 'pondering', dropEscapes: true, newPhrase: true });
    expect(v).toMatch(/^pondering Zorbling the quux\.\.\. \(\d+s\)/m);
    expect(v).not.toMatch(/^responding /m);
  });

  it(`${SCREEN_READER_RUNS} generated variants over the screen-reader frames`, () => {
    fc.assert(
      fc.property(
        fc.nat(screenReader.length - 1),
        fc.record({
          glyph: fc.option(fc.constantFrom(...REPLACEMENTS), { nil: null }),
          dropEscapes: fc.boolean(),
          newPhrase: fc.boolean(),
        }),
        (i, v) => {
          const s = screenReader[i]!;
          const text = variantOf(s.text, v);
          fc.pre(showsActivity(text));
          const r = s.profile.parse({ text });
          if (readsIdle(r)) {
            throw new Error(
              `${s.tool}/${s.file} ${JSON.stringify(v)} read ${r.evidence.rule}:\n${text}`,
            );
          }
        },
      ),
      { numRuns: SCREEN_READER_RUNS, seed: 15 },
    );
  }, 60_000);

  it(`${RUNS} generated variants (glyph × escapes × phrase) over ${ALL.length} real frames`, () => {
    const variant = fc.record({
      glyph: fc.option(fc.constantFrom(...REPLACEMENTS), { nil: null }),
      dropEscapes: fc.boolean(),
      newPhrase: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.nat(ALL.length - 1), variant, (i, v) => {
        const s = ALL[i]!;
        fc.pre(showsActivity(variantOf(s.text, v)));
        const r = s.profile.parse({ text: variantOf(s.text, v) });
        if (readsIdle(r)) {
          throw new Error(
            `${s.tool}/${s.file} ${JSON.stringify(v)} read ${r.evidence.rule}:\n${variantOf(s.text, v)}`,
          );
        }
      }),
      { numRuns: RUNS, seed: 15 },
    );
  }, 60_000);

  it('every glyph of every set on one frame of each way each CLI works or asks', () => {
    let n = 0;
    // One frame of each way each CLI works or asks (the profile's rule on the original frame).
    const kinds = new Set<string>();
    const perKind = ALL.filter((s) => {
      const kind = `${s.tool} ${s.rule}`;
      if (kinds.has(kind)) return false;
      kinds.add(kind);
      return true;
    });
    for (const s of perKind) {
      for (const glyph of REPLACEMENTS) {
        const text = variantOf(s.text, { glyph, dropEscapes: false, newPhrase: false });
        const r = s.profile.parse({ text });
        n++;
        expect(readsIdle(r), `${s.tool}/${s.file} glyph ${JSON.stringify(glyph)}\n${text}`).toBe(
          false,
        );
      }
    }
    expect(n).toBe(perKind.length * REPLACEMENTS.length);
    console.log(
      `variants: ${RUNS} generated over ${ALL.length} real frames, ${n} glyph variants over ${perKind.length} frames`,
    );
  });
});
