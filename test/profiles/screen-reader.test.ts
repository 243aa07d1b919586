import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { ProfileResult } from '../../src/schemas/signals.js';
import { recordedScreen, recordedScreens } from './real-frame.js';

/**
 * The screen-reader views of Gemini CLI and Qwen Code (docs/profiles.md), on real frames: each
 * state the view draws reads as what it is, and a frame that lacks a part the profile takes as
 * positive evidence (the prompt line, the footer) never reads idle.
 */
const CLIS = [
  { tool: 'gemini_cli', version: '0.61.0', finished: 'screen-reader-slow-turn' },
  { tool: 'qwen_code', version: '0.15.10', finished: 'screen-reader-slow-turn-then-permission' },
] as const;

const parse = (tool: string, version: string, text: string): ProfileResult =>
  getProfile(tool, version).parse({ text });

/** The first frame of a recording that shows `marker`. */
function frameWith(tool: string, scenario: string, marker: RegExp): string {
  const frame = recordedScreens(tool, scenario).find((s) => marker.test(s));
  if (frame === undefined) throw new Error(`${tool}/${scenario}: no frame shows ${marker}`);
  return frame;
}

const readsIdle = (r: ProfileResult) =>
  r.signals.readyPosture === 'yes' ||
  r.signals.successCandidate ||
  r.surface.businessState === 'idle';

/** The rows of a screen without its trailing blank ones. */
function rows(text: string): string[] {
  const all = text.split('\n');
  while (all.length > 0 && all.at(-1)!.trim() === '') all.pop();
  return all;
}

describe('screen-reader views', () => {
  for (const { tool, version, finished } of CLIS) {
    describe(tool, () => {
      const last = recordedScreen(tool, finished, -1);

      it('reads the finished turn: the reply above the footer, the prompt line last', () => {
        const r = parse(tool, version, last);
        expect(r.evidence.rule).toBe('finished');
        expect(r.signals.successCandidate).toBe(true);
        expect(r.signals.readyPosture).toBe('yes');
      });

      it('reads `responding` and the timer as working', () => {
        const r = parse(tool, version, frameWith(tool, finished, /^responding .*esc to cancel/m));
        expect(r.surface.businessState).toBe('working');
        expect(r.signals.successCandidate).toBe(false);
        expect(r.signals.readyPosture).toBe('no');
      });

      it('reads the permission question as a dialog', () => {
        const r = parse(tool, version, frameWith(tool, finished, /Allow execution of/));
        expect(r.evidence.rule).toBe('dialog:permission_prompt');
      });

      it('without the prompt line the finished screen is not idle', () => {
        const cut = rows(last).slice(0, -1).join('\n');
        expect(readsIdle(parse(tool, version, cut))).toBe(false);
      });

      it('without the footer the finished screen is not idle', () => {
        const footer = tool === 'gemini_cli' ? /^workspace \(\/directory\)/ : /^\? for shortcuts/;
        const cut = rows(last)
          .filter((l) => !footer.test(l))
          .join('\n');
        expect(cut).not.toBe(rows(last).join('\n'));
        expect(readsIdle(parse(tool, version, cut))).toBe(false);
      });

      it('a status row with the word gone and no hint left is not idle', () => {
        // The working frame with `responding` and the hint taken out, the phrase kept.
        const working = frameWith(tool, finished, /^responding .*esc to cancel/m);
        const bare = rows(working)
          .map((l) =>
            l.startsWith('responding ') ? l.replace(/^responding /, '').replace(/\s*\(.*$/, '') : l,
          )
          .join('\n');
        expect(bare).not.toMatch(/^responding /m);
        expect(readsIdle(parse(tool, version, bare))).toBe(false);
      });
    });
  }

  it('Gemini CLI: the cancel and error notes of this view (two spaces after the glyph)', () => {
    const p = (s: string, m: RegExp) =>
      parse('gemini_cli', '0.61.0', frameWith('gemini_cli', s, m));
    expect(
      p('screen-reader-interrupted-then-success', /^ℹ {2}Request cancelled\./m).evidence.rule,
    ).toBe('interrupted');
    expect(p('screen-reader-error-then-success', /^✕ {2}\[API Error/m).evidence.rule).toBe(
      'error:server_error',
    );
    expect(
      p('screen-reader-error-then-success', /^\(checked\) 1\. Keep trying$/m).evidence.rule,
    ).toBe('dialog:retry_prompt');
  });

  it('Qwen Code: the cancel and error notes below the footer', () => {
    const p = (s: string, m: RegExp) => parse('qwen_code', '0.15.10', frameWith('qwen_code', s, m));
    expect(p('screen-reader-interrupted', /^● Request cancelled\./m).evidence.rule).toBe(
      'interrupted',
    );
    expect(p('screen-reader-error-500', /^✕ \[API Error/m).evidence.rule).toBe(
      'error:server_error',
    );
    // While the CLI starts, its note stands over the rule: no prompt is typed yet.
    const starting = parse(
      'qwen_code',
      '0.15.10',
      frameWith('qwen_code', 'screen-reader-two-turns', /Initializing/),
    );
    expect(starting.signals.readyPosture).not.toBe('yes');
  });
});
