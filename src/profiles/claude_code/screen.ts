import { screenLines } from '../internal/lines.js';

/** The regions of one Claude Code screen, found by layout (rules, prompt glyph), not by colour. */
export interface ClaudeScreen {
  /** Screen lines, right-trimmed, trailing blank lines dropped. */
  lines: string[];
  /** The prompt box: the lines between its two rules, the prompt glyph taken off the first. */
  box: { draft: string[] } | null;
  /** Lines above the prompt box (or above a dialog): the transcript plus the live status. */
  above: string[];
  /** Lines below the prompt box: the footer hints. */
  footer: string[];
}

export const RULE = /^─{20,}$/;
export const PROMPT_GLYPH = '❯';

/** Splits a capture into transcript, prompt box and footer. */
export function splitScreen(text: string): ClaudeScreen {
  const lines = screenLines(text);
  // The prompt box is the last pair of full-width rules whose first inner line starts with ❯.
  for (let bottom = lines.length - 1; bottom > 0; bottom--) {
    if (!RULE.test(lines[bottom]!)) continue;
    let top = bottom - 1;
    while (top >= 0 && !RULE.test(lines[top]!)) top--;
    if (top < 0) break;
    const inner = lines.slice(top + 1, bottom);
    if (inner.length > 0 && inner[0]!.startsWith(PROMPT_GLYPH)) {
      const draft = inner.map((l, i) => (i === 0 ? l.slice(PROMPT_GLYPH.length) : l).trim());
      return {
        lines,
        box: { draft },
        above: lines.slice(0, top),
        footer: lines.slice(bottom + 1),
      };
    }
    bottom = top + 1;
  }
  return { lines, box: null, above: lines, footer: [] };
}
