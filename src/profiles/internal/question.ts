import { createHash } from 'node:crypto';
import type { QuestionKind, ReadQuestion } from '../../schemas/signals.js';

/** Box and rule characters: drawing, not text, so they take no part in a question's id. */
const DRAWING = /[│┃╭╮╰╯─━╌▀▄]/g;
/** The marks a CLI draws before its highlighted option. */
const CURSOR = /^(?:❯|›|●|>|\(checked\))\s*/;
/** One numbered option as drawn: its indentation, the cursor mark, its number and its label. */
const OPTION = /^(\s*)(❯\s*|›\s*|●\s*|>\s*|\(checked\)\s*)?(\d)\.\s+(\S.*)$/;

/**
 * A question's id: a short hash of the dialog's text with the drawing taken out and runs of
 * blanks made one, so the same dialog always has the same id and another dialog another.
 */
export function questionId(lines: readonly string[], keepCursor = false): string {
  const text = lines
    .map((l) => {
      const plain = l.replace(DRAWING, ' ').replace(/\s+/g, ' ').trim();
      return keepCursor ? plain : plain.replace(CURSOR, '');
    })
    .filter((l) => l !== '')
    .join('\n');
  return `q-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
}

/**
 * A dialog the profile does not fully recognise: kind `other` and no choices, so nothing can
 * answer it. Its id is the hash of the screen's last rows, where a dialog is drawn.
 */
export function unrecognisedQuestion(text: string): ReadQuestion {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return { id: questionId(lines.slice(-30), true), kind: 'other', subject: null, choices: [] };
}

/** A line with a box's side bars taken off (`│ text │` → `text`), its inner indent kept. */
export function unboxed(line: string): string {
  return (
    line
      .replace(/^\s*(?:[│┃]\s?)+/, (m) => ' '.repeat(Math.max(0, m.length - m.trim().length - 1)))
      // A scrollbar's column at the right edge (Qwen Code at 80x24), then the box's bars.
      .replace(/\s+[█▐]$/, '')
      .replace(/(?:\s*[│┃])+\s*$/, '')
      .trimEnd()
  );
}

/** One option of a dialog as drawn. */
export interface DrawnOption {
  /** The number drawn before it, or null when it carries none. */
  number: number | null;
  /** Its label as drawn, a wrapped label's lines joined by a space. */
  label: string;
  /** The cursor is on it. */
  selected: boolean;
}

/**
 * The last numbered list of options on the screen (`❯ 1. Yes`, `  2. No`): options numbered
 * 1, 2, 3, ... in order, each followed by the rest of its label when it wraps (lines indented
 * past its number). Null when there is no such list. `end` is the index after its last line.
 */
export function numberedOptions(
  lines: readonly string[],
): { options: DrawnOption[]; start: number; end: number } | null {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = OPTION.exec(lines[i]!);
    if (m && m[3] === '1') {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  const options: DrawnOption[] = [];
  let indent = 0;
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const m = OPTION.exec(line);
    if (m && Number(m[3]) === options.length + 1) {
      options.push({ number: Number(m[3]), label: m[4]!.trim(), selected: m[2] !== undefined });
      indent = m[1]!.length + (m[2]?.length ?? 0);
      continue;
    }
    const lead = line.length - line.trimStart().length;
    if (line.trim() !== '' && lead > indent && options.length > 0) {
      options[options.length - 1]!.label += ` ${line.trim()}`;
      continue;
    }
    break;
  }
  return { options, start, end: i };
}

/** How a CLI takes an answer to a list: a digit per option, or arrows from the cursor and Enter. */
export type ListKeys = 'digit' | 'arrows';

/** A choice's id for a label, from a profile's table (first match wins); null: not known. */
export type ChoiceTable = ReadonlyArray<readonly [RegExp, string]>;

/**
 * The question a list of options asks, when every option's label is one the table knows and
 * each id comes once; null otherwise (the caller then reports the dialog as unrecognised).
 * Arrows need the cursor: without a highlighted option there are no keys, so no question.
 */
export function listQuestion(
  dialog: readonly string[],
  kind: QuestionKind,
  subject: string | null,
  options: readonly DrawnOption[],
  table: ChoiceTable,
  keys: ListKeys | ((option: DrawnOption) => string[] | null),
): ReadQuestion | null {
  if (options.length === 0) return null;
  const cursor = options.findIndex((o) => o.selected);
  if (keys === 'arrows' && cursor < 0) return null;
  const choices: ReadQuestion['choices'] = [];
  for (const [index, option] of options.entries()) {
    const id = table.find(([re]) => re.test(option.label))?.[1];
    if (id === undefined || choices.some((c) => c.id === id)) return null;
    let pressed: string[] | null;
    if (keys === 'digit') pressed = option.number === null ? null : [String(option.number)];
    else if (keys === 'arrows') {
      const move = index - cursor;
      pressed = [...Array<string>(Math.abs(move)).fill(move > 0 ? 'Down' : 'Up'), 'Enter'];
    } else pressed = keys(option);
    if (pressed === null || pressed.length === 0) return null;
    choices.push({ id, label: option.label, keys: pressed });
  }
  // With arrows the cursor's place decides the keys, so it is part of the question's id.
  return { id: questionId(dialog, keys === 'arrows'), kind, subject, choices };
}

/** The shortcut a label ends with, as drawn (`Yes, proceed (y)` → `y`; `(esc)` → Escape). */
export function drawnShortcut(label: string): string[] | null {
  const m = /\((esc|[a-z])\)$/i.exec(label.trim());
  if (!m) return null;
  return m[1]!.toLowerCase() === 'esc' ? ['Escape'] : [m[1]!.toLowerCase()];
}

/**
 * The question a dialog asks whose last line matching `title` is followed by a numbered list
 * taken by its digit (Gemini CLI's and Qwen Code's folder trust); null without one.
 */
export function titledDigitList(
  lines: readonly string[],
  title: RegExp,
  kind: QuestionKind,
  subject: string | null,
  table: ChoiceTable,
): ReadQuestion | null {
  const at = lines.findLastIndex((l) => title.test(l));
  if (at < 0) return null;
  const list = numberedOptions(lines.slice(at));
  if (list === null) return null;
  return listQuestion(lines.slice(at, at + list.end), kind, subject, list.options, table, 'digit');
}
