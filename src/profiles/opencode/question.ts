import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import { questionId } from '../internal/question.js';
import type { Screen } from '../types.js';

/**
 * Reads the permission dialog of opencode and Kilo: `△ Permission required`, what it is for,
 * the command (`$ touch approved.txt`), and `Allow once   Allow always   Reject` on one row.
 * Which of the three is selected is drawn by colour alone, and no key that picks one wherever
 * the selection stands was verified, so the question is read with its subject and no choices:
 * it is shown, not answered.
 */
export function readOpencodeQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  if (dialog !== 'permission_prompt') return null;
  const lines = screenLines(screen.text).map((l) =>
    l.replace(/^\s*┃/, '').replace(/ {8,}\S.*$/, ''),
  );
  const title = lines.findLastIndex((l) => /^\s*△ Permission required\s*$/.test(l));
  if (title < 0) return null;
  const row = lines.findIndex(
    (l, i) => i > title && /^\s*Allow once\s+Allow always\s+Reject(?:\s|$)/.test(l),
  );
  if (row < 0) return null;
  const region = lines.slice(title, row + 1);
  const command = region.find((l) => /^\s*\$ /.test(l));
  return {
    id: questionId(region),
    kind: 'tool_permission',
    subject: command?.trim().slice(2) ?? null,
    choices: [],
  };
}
