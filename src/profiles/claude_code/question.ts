import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import {
  listQuestion,
  numberedOptions,
  type ChoiceTable,
  type DrawnOption,
} from '../internal/question.js';
import type { Screen } from '../types.js';
import type { ClaudeCodeVocabulary } from './vocabulary.js';

/** The permission dialog's options (permission-prompt, size-80x24-permission-prompt). */
const PERMISSION_CHOICES: ChoiceTable = [
  [/^Yes$/, 'allow_once'],
  [/^Yes, and (always allow|don't ask again)\b/, 'allow_always'],
  [/^Yes, allow all edits\b/, 'allow_always'],
  [/^Yes, and switch to auto mode\b/, 'switch_to_auto_mode'],
  [/^No\b/, 'deny'],
];

/** The folder trust dialog's options (trust-prompt): no numbers, a cursor `❯`. */
const TRUST_CHOICES: ChoiceTable = [
  [/^Yes, I trust this folder$/, 'trust'],
  [/^No, exit$/, 'exit'],
];

/**
 * Reads a Claude Code dialog as a question. The permission dialog numbers its options and
 * takes the digit; the trust dialog's options carry no numbers, so the cursor is moved with
 * the arrows and Enter confirms.
 */
export function readClaudeCodeQuestion(
  screen: Screen,
  dialog: DialogContext,
  v: ClaudeCodeVocabulary,
): ReadQuestion | null {
  const lines = screenLines(screen.text);
  if (dialog === 'permission_prompt') {
    const title = lines.findLastIndex((l) => v.permission.test(l));
    if (title < 0) return null;
    let top = title;
    while (top > 0 && !v.rule.test(lines[top]!)) top--;
    const list = numberedOptions(lines.slice(title));
    if (list === null || list.start !== 1) return null;
    const region = lines.slice(top, title + list.end);
    // The command or file sits between two dashed rules.
    const dashed = region.flatMap((l, i) => (/^\s*╌{8,}\s*$/.test(l) ? [i] : []));
    const subject =
      dashed.length >= 2
        ? region
            .slice(dashed[0]! + 1, dashed[1])
            .map((l) => l.trim())
            .filter((l) => l !== '')
            .join('\n') || null
        : null;
    return listQuestion(
      region,
      'tool_permission',
      subject,
      list.options,
      PERMISSION_CHOICES,
      'digit',
    );
  }
  if (dialog === 'trust_prompt') {
    const at = lines.findIndex((l) => /^\s*Accessing workspace:\s*$/.test(l));
    const options: DrawnOption[] = [];
    let first = -1;
    for (const [i, line] of lines.entries()) {
      const m = /^\s*(❯\s+)?\s*(Yes, I trust this folder|No, exit)$/.exec(line);
      if (!m) continue;
      if (first < 0) first = i;
      options.push({ number: null, label: m[2]!, selected: m[1] !== undefined });
    }
    if (at < 0 || options.length !== 2) return null;
    const subject =
      lines
        .slice(at + 1, first)
        .find((l) => l.trim() !== '')
        ?.trim() ?? null;
    return listQuestion(
      lines.slice(at, first + 2),
      'trust_folder',
      subject,
      options,
      TRUST_CHOICES,
      'arrows',
    );
  }
  return null;
}
