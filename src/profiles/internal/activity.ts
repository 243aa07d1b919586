/**
 * The fail-safe rule every profile follows, written once.
 *
 * A profile reads a screen as idle (ready for a prompt, or a turn finished) only on positive
 * evidence: the CLI's own prompt box is drawn, and nothing in the live region (the rows where
 * the CLI draws its status: between the transcript and the prompt box, and the rows under the
 * box) shows activity. Activity is any hint a CLI draws while it works, whatever glyph or
 * phrase comes before it:
 *
 * - an interrupt or cancel hint: `esc to cancel`, `esc to interrupt`, `esc esc interrupt`,
 *   `esc interrupt`, `escape to cancel`, `ctrl+c to cancel` (a tip such as `Press escape to stop the AI`
 *   is not one);
 * - a live counter: an elapsed time in parentheses (`(1s · …`, `(3s)`, `(esc to cancel, 1m 5s)`)
 *   or a token counter (`↓ 4 tokens`);
 * - a line that starts `Working` or `Retrying` (after at most a glyph);
 * - a spinner line: a phrase ending in an ellipsis followed by a parenthesis (`.. Initiating
 *   thoughtful gaze... (1s`), whatever glyph, if any, stands before the phrase.
 *
 * Spinner glyphs and phrases are not a closed set: Qwen Code 0.15 draws `.  `, `.. `, `...`
 * instead of its braille spinner whenever `TMUX` is set, a toggle `⊶⊷` for a running tool, and
 * the words `responding` / `loading` under a screen reader; its phrases are localised and picked
 * at random. Gemini CLI 0.61 draws cli-spinners' `dots` set and the same screen-reader words. So
 * the glyph never decides: the hints above do.
 *
 * A line in the spinner's place that starts with a glyph of a spinner set and carries a phrase
 * with an ellipsis, or that ends in an ellipsis (a phrase whose glyph is gone), but shows none of
 * the hints, is a known shape with an unknown part: the profile cannot tell working from idle, so the
 * frame reads `unknown` (readiness cannot become ready, no turn settles), never idle.
 */

/** Hints that mean the CLI is working, each with the reason it is reported under. */
const HINTS: ReadonlyArray<{ reason: string; re: RegExp }> = [
  { reason: 'escape_hint', re: /\besc(?:ape)?(?: esc)? (?:to )?(?:cancel|interrupt)\b/i },
  { reason: 'escape_hint', re: /\bctrl\+c to (?:cancel|interrupt)\b/i },
  { reason: 'token_counter', re: /[↑↓]\s*[\d.,]+\s*[kKmM]?\s*tokens?\b/ },
  {
    reason: 'elapsed_counter',
    re: /\((?:[^()]*[,·•]\s*)?(?:\d+h\s*)?(?:\d+m\s*)?\d+(?:\.\d+)?s\b/,
  },
  { reason: 'working_line', re: /^\s*(?:\S{1,3}\s+)?Working\b/ },
  { reason: 'retrying', re: /^\s*(?:\S{1,3}\s+)?Retrying\b/ },
  { reason: 'spinner_line', re: /^\s*(?:\S{1,3}\s*)?[A-Za-z][^()]*?(?:\.\.\.|…)\s*\(/ },
];

/**
 * A spinner line's shape: a glyph of a common spinner set (braille, line, dots, circles, stars,
 * toggle) and a phrase with an ellipsis, or a line ending in an ellipsis.
 */
const SPINNER_SHAPE =
  /^\s*(?:[\u2800-\u28ff|/\\\-●○◐◓◑◒·✢✳✶✻✽⊶⊷]|\.{1,3})\s+\S.*(?:\.\.\.|…)|(?:\.\.\.|…)\s*$/;

/** What the live region of a frame shows. */
export interface LiveActivity {
  /** Reasons the CLI is working (empty: no hint seen). */
  active: string[];
  /** A spinner-shaped line no hint explains: the frame cannot be read as idle. */
  unexplained: string | null;
}

/**
 * Reads the live region: every row is searched for the hints; the spinner's own place (when the
 * profile knows it) is also checked for a spinner-shaped line without any hint.
 */
export function readLiveRegion(
  live: readonly string[],
  spinnerPlace: readonly string[] = [],
): LiveActivity {
  const active: string[] = [];
  for (const line of live) {
    for (const { reason, re } of HINTS) {
      if (re.test(line) && !active.includes(reason)) active.push(reason);
    }
  }
  const unexplained =
    active.length > 0 ? null : (spinnerPlace.find((l) => SPINNER_SHAPE.test(l)) ?? null);
  return { active, unexplained };
}
