import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import { numberedOptions, questionId } from '../internal/question.js';
import type { Screen } from '../types.js';

/** The four options grok-cli 0.0.34's confirmation draws, in order. */
const OPTIONS = ['Yes', "Yes, and don't ask again this session", 'No', 'No, with feedback'];

/**
 * Reads grok-cli's confirmation as a question. Its cursor is drawn by colour alone, so a
 * capture without escapes cannot tell where it stands: moving it with the arrows would be a
 * guess. Escape rejects the operation wherever the cursor is (`onReject` in its
 * ConfirmationDialog), so the one choice offered is `deny`.
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
  return {
    id: questionId(lines.slice(start, title + list.end + footer + 1)),
    kind: 'tool_permission',
    subject,
    choices: [{ id: 'deny', label: 'Esc cancel', keys: ['Escape'] }],
  };
}
