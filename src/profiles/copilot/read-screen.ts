import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { findRuleBox, lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { CopilotVocabulary } from './vocabulary.js';

/** A `✗` failure line's message, joined with the indented lines it wraps onto. */
function failureMessage(turn: readonly string[], i: number, first: string): string {
  let message = first;
  for (let j = i + 1; j < turn.length && /^ {3}\S/.test(turn[j]!); j++) {
    message += ` ${turn[j]!.trim()}`;
  }
  return message;
}

/** The latest turn: what follows the last prompt echo (all of the transcript without one). */
function latestTurn(transcript: readonly string[], v: CopilotVocabulary): readonly string[] | null {
  const echo = lastIndexWhere(transcript, (l) => v.echo.test(l));
  if (echo < 0 && transcript.some((l) => v.header.test(l))) return null;
  return transcript.slice(echo + 1);
}

/**
 * Why the latest turn says the conversation no longer fits the model's window: its failure lines
 * whose message says so (a refused prompt, a refused compaction alike); undefined when none does.
 */
function contextTrouble(turn: readonly string[] | null, v: CopilotVocabulary): string | undefined {
  let found: string | undefined;
  for (let i = 0; turn !== null && i < turn.length; i++) {
    const failed = v.failed.exec(turn[i]!);
    if (!failed) continue;
    const message = failureMessage(turn, i, failed[1]!);
    found = v.contextErrors.find((c) => c.re.test(message))?.type ?? found;
  }
  return found;
}

/**
 * The latest turn's outcome: its last marker line after the latest prompt echo (a failure, the
 * cancel notice, or a message of the agent). Retry notices are not outcomes. Without an echo
 * and without the header, a long turn scrolled its echo away: all of the screen is that turn.
 */
function latestOutcome(turn: readonly string[] | null, v: CopilotVocabulary): TurnOutcome | null {
  if (turn === null) return null;
  for (let i = turn.length - 1; i >= 0; i--) {
    const line = turn[i]!;
    const failed = v.failed.exec(line);
    if (failed) {
      // The message wraps onto indented lines.
      const message = failureMessage(turn, i, failed[1]!);
      return { kind: 'failed', failure: failureFrom(message, v.failures) };
    }
    if (v.cancelled.test(line)) return { kind: 'interrupted' };
    if (v.retrying.test(line)) return null;
    if (v.message.test(line)) return { kind: 'finished' };
  }
  return null;
}

/**
 * Reads one Copilot CLI screen: the prompt box between two rules, the row under it (working or
 * idle), the dialogs drawn in the box's place, and the latest turn of the transcript.
 */
export function readCopilotScreen(screen: Screen, v: CopilotVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };

  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  const box = findRuleBox(lines, v.rule, (l) => l.startsWith(v.promptGlyph));
  if (box === null) {
    const tail = lines.slice(-30);
    const top = lastIndexWhere(lines, (l) => l.startsWith('╭'));
    const projection = lines
      .slice(0, top < 0 ? lines.length : top)
      .join('\n')
      .trim();
    if (tail.some((l) => v.permission.test(l))) {
      return { ...cli, dialog: 'permission_prompt', prompt: null, projection };
    }
    if (tail.some((l) => v.trust.test(l))) {
      return { ...cli, dialog: 'trust_prompt', prompt: null, projection };
    }
    if (lines.some((l) => v.exitNote.test(l))) return { shape: 'exited', why: 'exit_message' };
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    if (lines.some((l) => v.header.test(l) || v.tabs.test(l)))
      return { ...cli, dialog: null, prompt: null, projection };
    return { shape: 'unrecognised' };
  }

  const draft = [box.inner[0]!.slice(v.promptGlyph.length), ...box.inner.slice(1)]
    .map((l) => l.trim())
    .join('\n')
    .trim();
  const status = lines.slice(box.bottom + 1).join('\n');
  const active = v.working.test(status) ? ['working'] : [];
  // The row under the box is the idle hints, a loading note or the working row; another row
  // there (a new spinner, a reworded hint) is not known to mean idle.
  const row = lines.slice(box.bottom + 1).find((l) => l.trim() !== '') ?? '';
  const unexplained =
    active.length === 0 && row !== '' && !/Interactive|Loading\b/.test(row) ? row : undefined;
  // The row above the box names the working folder: chrome, not transcript.
  const transcript = lines.slice(0, Math.max(0, box.top - 1));
  const turn = latestTurn(transcript, v);
  const degraded = contextTrouble(turn, v);
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing: draft !== '' },
    active,
    outcome: latestOutcome(turn, v),
    projection: transcript
      .filter((l) => !v.logo.test(l))
      .join('\n')
      .trim(),
    live: lines.slice(box.bottom + 1),
    ...(unexplained === undefined ? {} : { unexplained }),
    ...(degraded === undefined ? {} : { degraded }),
  };
}
