import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { highlightedOption, type HighlightStyles } from '../internal/highlight.js';
import { screenLines } from '../internal/lines.js';
import { numberedOptions, questionId } from '../internal/question.js';
import type { Screen } from '../types.js';

/** The four options grok-cli 0.0.34's confirmation draws, in order. */
const OPTIONS = ['Yes', "Yes, and don't ask again this session", 'No', 'No, with feedback'];

/**
 * How grok-cli 0.0.34 draws its options (`capture-pane -e` of the live dialog, as in
 * `test/fixtures/grok_cli/highlight/`): the highlighted one black on cyan, the others white.
 */
export const GROK_HIGHLIGHT: HighlightStyles = {
  selected: ['fg=30 bg=46'],
  unselected: ['fg=37'],
};

/** Read without escapes: the allowing choices wait for the answer's capture with them. */
const UNREAD = 'the highlighted option is read from a capture with escapes, right before typing';

/**
 * Reads grok-cli's confirmation as a question. Its cursor is drawn by colour alone: the plain
 * capture cannot tell where it stands, so `allow_once` and `allow_always` (arrows from the
 * highlighted option, then Enter) get their keys only from a capture with escapes (the answer
 * takes one right before typing). Escape rejects the operation wherever the cursor is
 * (`onReject` in its ConfirmationDialog), so `deny` needs no highlight. `No, with feedback`
 * asks for text and is not offered.
 */
export function readGrokQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  if (dialog !== 'permission_prompt') return null;
  const lines = screenLines(screen.text);
  const title = lines.findLastIndex((l) =>
    /^\s*Do you want to proceed with this operation\?/.test(l),
  );
  if (title < 0) return null;
  const list = numberedOptions(lines.slice(title));
  if (list === null || list.options.map((o) => o.label).join('\n') !== OPTIONS.join('\n')) {
    return null;
  }
  const footer = lines
    .slice(title + list.end, title + list.end + 3)
    .findIndex((l) => /Enter select .* Esc cancel/.test(l));
  if (footer < 0) return null;
  const tool = lines.slice(0, title).findLast((l) => /^\s*⏺ .+\(.*\)\s*$/.test(l));
  const subject = tool ? /\((.*)\)\s*$/.exec(tool)![1]! : null;
  const start = tool ? lines.lastIndexOf(tool) : title;

  // Each option's row and the column of its label (`   1. Yes`).
  const placed = list.options.map((o) => {
    const row = lines.findIndex(
      (l, i) => i >= title + list.start && new RegExp(`^\\s*${o.number}\\. `).test(l),
    );
    const line = lines[row] ?? '';
    return { label: o.label, row, column: line.indexOf(`${o.number}. `) + 3 };
  });
  let keys: (target: number) => string[] = () => [];
  let problem: string | null = UNREAD;
  if (screen.ansi !== undefined) {
    const lit = highlightedOption(screen.ansi, screen.text, placed, GROK_HIGHLIGHT);
    if ('problem' in lit) problem = lit.problem;
    else {
      problem = null;
      keys = (target) => {
        const move = target - lit.index;
        return [...Array<string>(Math.abs(move)).fill(move > 0 ? 'Down' : 'Up'), 'Enter'];
      };
    }
  }
  return {
    id: questionId(lines.slice(start, title + list.end + footer + 1)),
    kind: 'tool_permission',
    subject,
    choices: [
      { id: 'allow_once', label: OPTIONS[0]!, keys: keys(0) },
      { id: 'allow_always', label: OPTIONS[1]!, keys: keys(1) },
      { id: 'deny', label: 'Esc cancel', keys: ['Escape'] },
    ],
    highlight: { problem },
  };
}
