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

/** The tool confirmation's options (permission-approved, permission-denied). */
const PERMISSION_CHOICES: ChoiceTable = [
  [/^Yes, allow once$/, 'allow_once'],
  [/^Always allow .* in this project$/, 'allow_always'],
  [/^Always allow .* for this user$/, 'allow_always_user'],
  [/^Yes, allow always\b/, 'allow_always'],
  [/^No, suggest changes \(esc\)$/, 'deny'],
];

/**
 * The folder trust dialog's options, each naming its folder (startup-dialogs:
 * `Trust folder (work)`, `Trust parent folder (qwen_code)`, `Don't trust (esc)`).
 */
const TRUST_CHOICES: ChoiceTable = [
  [/^Trust folder \(.+\)$/, 'trust'],
  [/^Trust parent folder \(.+\)$/, 'trust_parent'],
  [/^Don't trust \(esc\)$/, 'dont_trust'],
];

/**
 * Reads a Qwen Code dialog as a question: the tool confirmation, a numbered list (in a box, or
 * plain lines under a screen reader, `(checked)` marking the cursor), the digit of an option
 * chooses it. The command is the first line under the title. The folder trust dialog is a
 * numbered list too, taken by its digit as Gemini CLI's is; it draws no path, only the folder's
 * name in each label, so the question has no subject.
 */
export function readQwenQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  if (dialog === 'trust_prompt') return readQwenTrust(screen);
  if (dialog !== 'permission_prompt') return null;
  const lines = screenLines(screen.text).map(unboxed);
  const title = lines.findLastIndex((l) => /^\s*(?:\?\s+|Confirming: )\S+ \S/.test(l));
  if (title < 0) return null;
  const list = numberedOptions(lines.slice(title));
  if (list === null) return null;
  const region = lines.slice(title, title + list.end);
  const subject =
    region
      .slice(1, list.start)
      .find((l) => l.trim() !== '')
      ?.trim() ?? null;
  return listQuestion(
    region,
    'tool_permission',
    subject,
    list.options,
    PERMISSION_CHOICES,
    'digit',
  );
}

function readQwenTrust(screen: Screen): ReadQuestion | null {
  const lines = screenLines(screen.text).map(unboxed);
  return titledDigitList(
    lines,
    /^\s*Do you trust this folder\?\s*$/,
    'trust_folder',
    null,
    TRUST_CHOICES,
  );
}
