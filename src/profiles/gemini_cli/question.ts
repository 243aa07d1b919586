import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import {
  listQuestion,
  numberedOptions,
  titledDigitList,
  unboxed,
  type ChoiceTable,
} from '../internal/question.js';
import type { Screen } from '../types.js';

/** The tool confirmation's options (permission-prompt, edit-approval). */
const PERMISSION_CHOICES: ChoiceTable = [
  [/^Allow once$/, 'allow_once'],
  [/^Allow for this session$/, 'allow_session'],
  [/^Modify with external editor$/, 'modify_in_editor'],
  [/^No, suggest changes \(esc\)$/, 'deny'],
];

/** The folder trust dialog's options (startup-trust-dialog). */
const TRUST_CHOICES: ChoiceTable = [
  [/^Trust folder\b/, 'trust'],
  [/^Trust parent folder\b/, 'trust_parent'],
  [/^Don't trust$/, 'dont_trust'],
];

/**
 * Reads a Gemini CLI dialog as a question: a numbered list in a box, the digit of an option
 * chooses it. The confirmation's title names the tool and what it acts on
 * (`? Shell  touch created-by-tool.txt`, `? WriteFile  Writing to notes.txt`).
 */
export function readGeminiQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  const lines = screenLines(screen.text).map(unboxed);
  if (dialog === 'permission_prompt') {
    const title = lines.findLastIndex((l) => /^\s*\? \S+ {2}\S/.test(l));
    if (title < 0) return null;
    const list = numberedOptions(lines.slice(title));
    if (list === null) return null;
    const subject = /^\s*\? \S+ {2}(.+)$/.exec(lines[title]!)![1]!.trim();
    return listQuestion(
      lines.slice(title, title + list.end),
      'tool_permission',
      subject,
      list.options,
      PERMISSION_CHOICES,
      'digit',
    );
  }
  if (dialog === 'trust_prompt') {
    return titledDigitList(
      lines,
      /Do you trust the files in this folder\?/,
      'trust_folder',
      null,
      TRUST_CHOICES,
    );
  }
  return null;
}
