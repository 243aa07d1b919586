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
 * read on a capture with escapes, then Enter. `allow_always` is the arrows to `Allow always`
 * and Enter, which open the CLI's confirmation (`△ Always allow`): the answer confirms it there.
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
  if (title < 0) {
    return (
      alwaysStage(screen, raw, lines, v) ??
      rejectStage(raw.map((l) => l.replace(/^\s*┃/, '').trimEnd()))
    );
  }
  const row = lines.findIndex(
    (l, i) => i > title && /^\s*Allow once\s+Allow always\s+Reject(?:\s|$)/.test(l),
  );
  if (row < 0) return null;
  const region = lines.slice(title, row + 1);
  const command = region.find((l) => /^\s*\$ /.test(l));

  const lit = litOption(screen, raw[row]!, row, OPTIONS, v);
  const to = (index: number) => ('index' in lit ? [...arrows(lit.index, index), 'Enter'] : []);
  return {
    id: questionId(region),
    kind: 'tool_permission',
    subject: command?.trim().slice(2) ?? null,
    choices: [
      { id: 'allow_once', label: 'Allow once', keys: to(0) },
      { id: 'allow_always', label: 'Allow always', keys: to(1), confirmation: true },
      { id: 'deny', label: 'Reject', keys: ['Escape'] },
    ],
    highlight: { problem: 'problem' in lit ? lit.problem : null },
  };
}

/** The arrows that move the selection from option `from` to option `to` on its row. */
function arrows(from: number, to: number): string[] {
  return Array<string>(Math.abs(to - from)).fill(to < from ? 'Left' : 'Right');
}

/**
 * Which of `labels`, drawn in this order on line `row`, carries the selection: read from the
 * capture with escapes; without one (a poll), the problem says it waits for that capture.
 */
function litOption(
  screen: Screen,
  line: string,
  row: number,
  labels: readonly string[],
  v: OpencodeVocabulary,
): { index: number } | { problem: string } {
  if (screen.ansi === undefined) return { problem: UNREAD };
  let from = 0;
  const placed = labels.map((label) => {
    const column = line.indexOf(label, from);
    from = column + label.length;
    return { label, row, column };
  });
  return highlightedOption(screen.ansi, screen.text, placed, v.highlight);
}

/**
 * The confirmation `Allow always` opens: `△ Always allow`, `This will allow the following
 * patterns until OpenCode is restarted` (Kilo: `… patterns permanently`), each pattern on its
 * `- ` line (`- touch *`), and `Confirm   Cancel`, the selection drawn by colour alone as in the
 * dialog before (Confirm selected when it opens). `allow_always` is the arrows to Confirm read on
 * a capture with escapes, then Enter; `back` is Escape, which returns to the permission dialog
 * (as Cancel does), seen live in both CLIs. The patterns are its subject.
 */
function alwaysStage(
  screen: Screen,
  raw: readonly string[],
  lines: readonly string[],
  v: OpencodeVocabulary,
): ReadQuestion | null {
  const title = lines.findLastIndex((l) => /^\s*△ Always allow\s*$/.test(l));
  if (title < 0) return null;
  const next = (after: number) => lines.findIndex((l, i) => i > after && l.trim() !== '');
  const note = next(title);
  const what = /^\s*This will allow the following patterns (?:until \S+ is restarted|permanently)$/;
  if (note < 0 || !what.test(lines[note]!)) return null;
  const patterns: string[] = [];
  let at = next(note);
  for (; at >= 0 && /^\s*- \S/.test(lines[at]!); at = next(at)) {
    patterns.push(lines[at]!.trim().slice(2));
  }
  if (patterns.length === 0 || at < 0 || !/^\s*Confirm {3}Cancel\s*$/.test(lines[at]!)) {
    return null;
  }
  const lit = litOption(screen, raw[at]!, at, ['Confirm', 'Cancel'], v);
  return {
    id: questionId(lines.slice(title, at + 1)),
    kind: 'tool_permission',
    subject: patterns.join(', '),
    choices: [
      {
        id: 'allow_always',
        label: 'Confirm',
        keys: 'index' in lit ? [...arrows(lit.index, 0), 'Enter'] : [],
      },
      { id: 'back', label: 'Cancel', keys: ['Escape'] },
    ],
    confirms: 'allow_always',
    highlight: { problem: 'problem' in lit ? lit.problem : null },
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
