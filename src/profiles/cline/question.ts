import type { DialogContext, ReadQuestion } from '../../schemas/signals.js';
import { screenLines } from '../internal/lines.js';
import { questionId } from '../internal/question.js';
import type { Screen } from '../types.js';

/**
 * Reads Cline's tool approval as a question: `Cline needs permission`, `Approve tool call?`,
 * the tool and its command, then `[y] Approve   [n] Deny`: the key in brackets answers. The
 * spinner line above it moves while the dialog waits, so it is not part of the question.
 */
export function readClineQuestion(screen: Screen, dialog: DialogContext): ReadQuestion | null {
  if (dialog !== 'permission_prompt') return null;
  const lines = screenLines(screen.text);
  const title = lines.findLastIndex((l) => /^\s*Cline needs permission\s*$/.test(l));
  if (title < 0) return null;
  const keysAt = lines.findIndex(
    (l, i) => i > title && /^\s*\[y\] Approve\s+\[n\] Deny\s*$/.test(l),
  );
  if (keysAt < 0) return null;
  const region = lines.slice(title, keysAt + 1);
  const command = region.find((l) => /^\s*\$ /.test(l));
  return {
    id: questionId(region),
    kind: 'tool_permission',
    subject: command?.trim().slice(2) ?? null,
    choices: [
      { id: 'allow_once', label: 'Approve', keys: ['y'] },
      { id: 'deny', label: 'Deny', keys: ['n'] },
    ],
  };
}
