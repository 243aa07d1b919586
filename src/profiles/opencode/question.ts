import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { highlightedOption } from '../internal/highlight.js';
import { screenLines } from '../internal/lines.js';
import { questionId } from '../internal/question.js';
import type { Screen } from '../types.js';
import type { OpencodeVocabulary } from './vocabulary.js';

/** The three options, in the order drawn on their row. */
const OPTIONS = ['Allow once', 'Allow always', 'Reject'] as const;

/** Read without escapes: allowing waits for the answer's capture with them. */
const UNREAD = 'the highlighted option is read from a capture with escapes, right before typing';

/**
 * Reads the permission dialog of opencode and Kilo: `△ Permission required`, what it is for,
 * the command (`$ touch approved.txt`), and `Allow once   Allow always   Reject` on one row.
 * The selection is drawn by colour alone and moved by Left and Right (the dialog's `⇆
 * select`), Enter confirms it; Escape rejects wherever the selection stands (the prompt's
 * escape key). So `deny` is Escape, and `allow_once` is the arrows from the highlighted option
 * read on a capture with escapes, then Enter. `Allow always` opens a second confirmation and is
 * not offered.
 */
export function readOpencodeQuestion(
  screen: Screen,
  dialog: DialogContext,
  v: OpencodeVocabulary,
): ReadQuestion | null {
  if (dialog !== 'permission_prompt') return null;
  const raw = screenLines(screen.text);
  const lines = raw.map((l) => l.replace(/^\s*┃/, '').replace(/ {8,}\S.*$/, ''));
  const title = lines.findLastIndex((l) => /^\s*△ Permission required\s*$/.test(l));
  if (title < 0) return rejectStage(raw.map((l) => l.replace(/^\s*┃/, '').trimEnd()));
  const row = lines.findIndex(
    (l, i) => i > title && /^\s*Allow once\s+Allow always\s+Reject(?:\s|$)/.test(l),
  );
  if (row < 0) return null;
  const region = lines.slice(title, row + 1);
  const command = region.find((l) => /^\s*\$ /.test(l));

  let problem: string | null = UNREAD;
  let allowOnce: string[] = [];
  if (screen.ansi !== undefined) {
    const line = raw[row]!;
    let from = 0;
    const placed = OPTIONS.map((label) => {
      const column = line.indexOf(label, from);
      from = column + label.length;
      return { label, row, column };
    });
    const lit = highlightedOption(screen.ansi, screen.text, placed, v.highlight);
    if ('problem' in lit) problem = lit.problem;
    else {
      problem = null;
      allowOnce = [...Array<string>(lit.index).fill('Left'), 'Enter'];
    }
  }
  return {
    id: questionId(region),
    kind: 'tool_permission',
    subject: command?.trim().slice(2) ?? null,
    choices: [
      { id: 'allow_once', label: 'Allow once', keys: allowOnce },
      { id: 'deny', label: 'Reject', keys: ['Escape'] },
    ],
    highlight: { problem },
  };
}

/**
 * Kilo asks what to do instead once Reject is chosen (`△ Reject permission`, `Tell Kilo what to
 * do differently`, a text box, `enter confirm  esc cancel`): Enter refuses with no message,
 * Escape goes back to the permission dialog. It draws no command, so its subject is null.
 */
function rejectStage(lines: readonly string[]): ReadQuestion | null {
  const title = lines.findLastIndex((l) => /^\s*△ Reject permission\s*$/.test(l));
  if (title < 0) return null;
  const prompt = lines.findIndex((l, i) => i > title && l.trim() !== '');
  if (!/^\s*Tell \S+ what to do differently$/.test(lines[prompt] ?? '')) return null;
  const keys = lines.findIndex((l, i) => i > prompt && /^\s+enter confirm {2}esc cancel$/.test(l));
  if (keys < 0) return null;
  return {
    id: questionId(lines.slice(title, keys + 1)),
    kind: 'tool_permission',
    subject: null,
    choices: [
      { id: 'deny', label: 'enter confirm', keys: ['Enter'] },
      { id: 'back', label: 'esc cancel', keys: ['Escape'] },
    ],
  };
}
