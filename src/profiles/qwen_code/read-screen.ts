import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { findRuleBox, lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { QwenCodeVocabulary } from './vocabulary.js';

/** The latest turn's outcome: its last cancel note, error or reply after the last prompt echo. */
function latestOutcome(transcript: readonly string[], v: QwenCodeVocabulary): TurnOutcome | null {
  const echo = lastIndexWhere(transcript, (l) => v.echo.test(l));
  // No echo and no header: a long reply scrolled its prompt away; all of the screen is the turn.
  if (echo < 0 && transcript.some((l) => v.header.test(l))) return null;
  const turn = transcript.slice(echo + 1);
  for (let i = turn.length - 1; i >= 0; i--) {
    const line = turn[i]!;
    if (v.cancelled.test(line)) return { kind: 'interrupted' };
    const error = v.apiError.exec(line);
    if (error) {
      const message = error[1]!.replace(/\]\s*(?:\(Press Ctrl\+Y to retry\))?$/, '');
      return { kind: 'failed', failure: failureFrom(message, v.failures) };
    }
    if (v.reply.test(line)) return { kind: 'finished' };
  }
  return null;
}

/**
 * Reads one Qwen Code screen: the prompt box between two rules, the spinner line above it, the
 * dialogs drawn in its place, and the latest turn after the last prompt echo.
 */
export function readQwenCodeScreen(screen: Screen, v: QwenCodeVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };

  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  const box = findRuleBox(lines, v.rule, (l) => l.startsWith(v.promptGlyph));
  if (box === null) {
    const tail = lines.slice(-25);
    const projection = lines
      .slice(0, lines.length - 25)
      .join('\n')
      .trim();
    if (tail.some((l) => v.permission.test(l))) {
      return { ...cli, dialog: 'permission_prompt', prompt: null, projection };
    }
    if (tail.some((l) => v.trust.test(l))) {
      return { ...cli, dialog: 'trust_prompt', prompt: null, projection };
    }
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    return lines.some((l) => v.header.test(l))
      ? { ...cli, dialog: null, prompt: null, projection: '' }
      : { shape: 'unrecognised' };
  }

  const draft = [box.inner[0]!.slice(v.promptGlyph.length), ...box.inner.slice(1)]
    .map((l) => l.trim())
    .join('\n')
    .trim();
  const above = lines.slice(0, box.top);
  // The box is drawn while the CLI still initialises; a dialog may take its place next.
  if (lines.slice(box.bottom + 1).some((l) => v.initializing.test(l))) {
    return {
      ...cli,
      dialog: null,
      prompt: { mode: 'unknown', editing: false, context: 'startup' },
      projection: above.join('\n').trim(),
    };
  }
  // The spinner line is the last one above the box, or the one before when it wraps.
  const spinner = lastIndexWhere(above, (l) => v.spinner.test(l));
  const tail = spinner < 0 ? '' : above.slice(spinner).join(' ').replace(/\s+/g, ' ').trim();
  const live =
    spinner >= above.length - 3 &&
    above.slice(spinner + 1).filter((l) => l.trim() !== '').length <= 1 &&
    v.spinnerHint.test(tail);
  const active = live ? ['spinner'] : [];
  const transcript = live ? above.slice(0, spinner) : above;
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing: draft !== '' && draft !== v.placeholder },
    active,
    outcome: latestOutcome(transcript, v),
    projection: transcript.join('\n').trim(),
    live: [...above.slice(-3), ...lines.slice(box.bottom + 1)],
    spinnerPlace: above.slice(-3),
  };
}
