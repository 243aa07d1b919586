import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { findRuleBox, lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { ClineVocabulary } from './vocabulary.js';

/** A row holding nothing but the scroll bar's blocks. */
const SCROLL_BAR_ONLY = /^\s*[▀▄█]+\s*$/;

/**
 * The latest turn's outcome. Only an error is told apart: a finished reply and one cut short by
 * Escape are drawn alike (` * …`, no note of the interrupt), so neither is guessed.
 */
function latestOutcome(
  turn: readonly string[],
  v: ClineVocabulary,
): { outcome: TurnOutcome | null; degraded?: string } {
  const item = lastIndexWhere(turn, (l) => v.item.test(l));
  const error = item < 0 ? null : v.error.exec(turn[item]!);
  if (!error) return { outcome: null };
  const rest = turn.slice(item + 1).filter((l) => /^ {2,3}\S/.test(l));
  const message = [error[1]!, ...rest.map((l) => l.trim())].join(' ');
  // The same error item says why, when it says the conversation no longer fits the window.
  const degraded = v.contextErrors.find((c) => c.re.test(message))?.type;
  return {
    outcome: { kind: 'failed', failure: failureFrom(message, v.failures) },
    ...(degraded === undefined ? {} : { degraded }),
  };
}

/**
 * Reads one Cline CLI screen: the prompt box between two rules, the footer under it, the
 * permission question drawn in its place, and the latest turn after the last prompt echo.
 */
export function readClineScreen(screen: Screen, v: ClineVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };

  if (lines.some((l) => v.exitNote.test(l))) return { shape: 'exited', why: 'exit_message' };
  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  const footerKnown = lines.some((l) => v.footer.test(l));
  if (lines.some((l) => v.promotion.test(l))) {
    return { ...cli, dialog: null, prompt: null, panel: 'overlay', projection: '' };
  }
  const box = findRuleBox(lines, v.rule, (l) => l.trimStart().startsWith(v.promptGlyph));
  if (box === null) {
    const question = lastIndexWhere(lines, (l) => v.permission.test(l));
    if (question >= 0 && lines.slice(question).some((l) => v.permissionKeys.test(l))) {
      const echo = lastIndexWhere(lines, (l) => v.echo.test(l), question);
      const top = lastIndexWhere(lines, (l) => l.trim() !== '' && !v.streaming.test(l), question);
      return {
        ...cli,
        dialog: 'permission_prompt',
        prompt: null,
        projection: lines
          .slice(0, Math.max(echo + 1, top))
          .join('\n')
          .trim(),
      };
    }
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    return footerKnown
      ? { ...cli, dialog: null, prompt: null, projection: '' }
      : { shape: 'unrecognised' };
  }

  const draft = [box.inner[0]!.trimStart().slice(v.promptGlyph.length), ...box.inner.slice(1)]
    .map((l) => l.trim())
    .join('\n')
    .trim();
  const transcript = lines.slice(0, box.top);
  const echo = lastIndexWhere(transcript, (l) => v.echo.test(l));
  const turn = echo < 0 ? [] : transcript.slice(echo + 1);
  const active: string[] = [];
  if (turn.some((l) => v.streaming.test(l))) active.push('spinner');
  if (turn.some((l) => v.escToCancel.test(l))) active.push('esc_to_cancel');
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing: draft !== '' && !v.placeholders.includes(draft) },
    active,
    ...latestOutcome(turn, v),
    // Before the first turn the logo is redrawn as the prompt is typed: not the transcript.
    projection: transcript
      .filter((l) => !v.streaming.test(l) && (echo >= 0 || !v.logoRow.test(l)))
      .join('\n')
      .trim(),
    live: [...lines.slice(Math.max(0, box.top - 3), box.top), ...lines.slice(box.bottom + 1)],
    // The scroll bar Cline draws down the right edge (`▄`, `█` alone on a row) is not the
    // spinner, nor are the placeholder and hint Cline may draw above the box.
    spinnerPlace: [
      lastNonBlank(
        transcript.filter(
          (l) =>
            !SCROLL_BAR_ONLY.test(l) && !v.placeholders.includes(l.trim()) && !v.boxHint.test(l),
        ),
      ),
    ],
  };
}
