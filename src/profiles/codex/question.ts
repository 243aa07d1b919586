import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import {
  drawnShortcut,
  listQuestion,
  numberedOptions,
  type ChoiceTable,
} from '../internal/question.js';
import type { Screen } from '../types.js';
import type { CodexVocabulary } from './vocabulary.js';

/** The approval dialog's options (permission-prompt), each ending with its shortcut. */
const APPROVAL_CHOICES: ChoiceTable = [
  [/^Yes, proceed\b/, 'allow_once'],
  [/^Yes, and don't ask again\b/, 'allow_always'],
  [/^No, and tell Codex what to do differently\b/, 'deny'],
];

/** The start-up folder question (startup-trust-dialog). */
const TRUST_CHOICES: ChoiceTable = [
  [/^Trust and continue$/, 'trust'],
  [/^Back to Agent Command Center$/, 'back'],
];

/**
 * Reads a Codex dialog as a question. The approval dialog draws a shortcut after each option
 * (`(y)`, `(p)`, `(esc)`), which is what is pressed; the trust question draws none, so the
 * cursor (`›`) is moved with the arrows and Enter confirms.
 */
export function readCodexQuestion(
  screen: Screen,
  dialog: DialogContext,
  v: CodexVocabulary,
): ReadQuestion | null {
  const lines = screenLines(screen.text);
  if (dialog === 'permission_prompt') {
    const header = lines.findLastIndex((l) => v.approvalDialog.header.test(l));
    if (header < 0) return null;
    const list = numberedOptions(lines.slice(header));
    if (list === null) return null;
    const region = lines.slice(header, header + list.end);
    const command = region.slice(0, list.start).find((l) => /^\s*\$ /.test(l));
    const subject = command?.trim().slice(2) ?? null;
    return listQuestion(region, 'tool_permission', subject, list.options, APPROVAL_CHOICES, (o) =>
      drawnShortcut(o.label),
    );
  }
  if (dialog === 'trust_prompt') {
    const title = lines.findIndex((l) => /^\s*Folder access\s*$/.test(l));
    const list = numberedOptions(lines);
    if (list === null || title < 0 || title > list.start) return null;
    const subject = lines[title + 1]?.trim() || null;
    return listQuestion(
      lines.slice(title, list.end),
      'trust_folder',
      subject,
      list.options,
      TRUST_CHOICES,
      'arrows',
    );
  }
  return null;
}
