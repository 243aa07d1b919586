import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import { listQuestion, numberedOptions, unboxed, type ChoiceTable } from '../internal/question.js';
import type { Screen } from '../types.js';

/** The command confirmation's options (permission-approved, permission-denied). */
const PERMISSION_CHOICES: ChoiceTable = [
  [/^Yes$/, 'allow_once'],
  [/^Yes, and don't ask again\b/, 'allow_always'],
  [/^No, and tell Copilot what to do differently\b/, 'deny'],
];

/** The folder trust dialog's options (startup-dialogs). */
const TRUST_CHOICES: ChoiceTable = [
  [/^Yes$/, 'trust'],
  [/^Yes, and remember this folder for future sessions$/, 'trust_always'],
  [/^No \(Esc\)$/, 'dont_trust'],
];

/**
 * Reads a Copilot CLI dialog as a question: `Do you want to run this command?` over a numbered
 * list whose footer says `↑/↓ to navigate · enter to select`, so the cursor (`❯`) is moved with
 * the arrows and Enter confirms; the refusal, which draws `(Esc to stop)`, is Escape. The command
 * is the line in the box above the title.
 */
export function readCopilotQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  if (dialog === 'trust_prompt') return readCopilotTrust(screen);
  if (dialog !== 'permission_prompt') return null;
  const lines = screenLines(screen.text).map(unboxed);
  const title = lines.findLastIndex((l) => /^\s*Do you want to run this command\?\s*$/.test(l));
  if (title < 0) return null;
  const list = numberedOptions(lines.slice(title));
  if (list === null) return null;
  if (!lines.slice(title + list.end).some((l) => /↑\/↓ to navigate · enter to select/.test(l))) {
    return null;
  }
  let top = title - 1;
  while (top > 0 && lines[top]!.trim() === '') top--;
  // The command's own box: `╭─╮`, the command, `╰─╯`, right above the title.
  const boxed = /^\s*╰─+╯\s*$/.test(lines[top]!)
    ? lines[top - 1]!.replace(/[│┃]/g, '').trim()
    : null;
  const region = lines.slice(Math.max(0, top - 2), title + list.end);
  const question = listQuestion(
    region,
    'tool_permission',
    boxed || null,
    list.options,
    PERMISSION_CHOICES,
    'arrows',
  );
  if (question === null) return null;
  // The refusal draws its own key, `(Esc to stop)`: Escape, wherever the cursor stands. (Enter
  // on it, the cursor moved there by the arrows, was seen live to leave the dialog open.)
  return {
    ...question,
    choices: question.choices.map((c) =>
      c.id === 'deny' && /\(Esc to stop\)$/.test(c.label) ? { ...c, keys: ['Escape'] } : c,
    ),
  };
}

/**
 * The folder trust dialog: the folder in a box of its own above the text, `Do you trust the files
 * in this folder?`, a numbered list moved with the arrows (`↑/↓ to navigate · enter to select`).
 * `No (Esc)` draws its own key: Escape.
 */
function readCopilotTrust(screen: Screen): ReadQuestion | null {
  const lines = screenLines(screen.text).map(unboxed);
  const title = lines.findLastIndex((l) =>
    /^\s*Do you trust the files in this folder\?\s*$/.test(l),
  );
  if (title < 0) return null;
  const list = numberedOptions(lines.slice(title));
  if (list === null) return null;
  if (!lines.slice(title + list.end).some((l) => /↑\/↓ to navigate · enter to select/.test(l))) {
    return null;
  }
  // The folder: the line inside the last `╭─╮ … ╰─╯` box above the title.
  let bottom = title - 1;
  while (bottom > 0 && !/^\s*╰─+╯\s*$/.test(lines[bottom]!)) bottom--;
  const folder =
    bottom > 1 && /^\s*╭─+╮\s*$/.test(lines[bottom - 2]!)
      ? lines[bottom - 1]!.replace(/[│┃]/g, '').trim() || null
      : null;
  const question = listQuestion(
    lines.slice(Math.max(0, bottom - 2), title + list.end),
    'trust_folder',
    folder,
    list.options,
    TRUST_CHOICES,
    'arrows',
  );
  if (question === null) return null;
  return {
    ...question,
    choices: question.choices.map((c) => (c.id === 'dont_trust' ? { ...c, keys: ['Escape'] } : c)),
  };
}
