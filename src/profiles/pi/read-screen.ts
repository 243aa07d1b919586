import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { PiVocabulary } from './vocabulary.js';

/** The editor: the last two rules with at most a few draft lines between them. */
function editor(lines: readonly string[], v: PiVocabulary): { top: number; bottom: number } | null {
  const bottom = lastIndexWhere(lines, (l) => v.rule.test(l));
  if (bottom < 1) return null;
  const top = lastIndexWhere(lines, (l) => v.rule.test(l), bottom);
  return top >= 0 && bottom - top <= 12 ? { top, bottom } : null;
}

/**
 * Reads one pi screen: the editor between two rules, the working line above it, the footer, and
 * the transcript's last line. pi has no permission prompts: tools run unasked.
 */
export function readPiScreen(screen: Screen, v: PiVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottomLine = lastNonBlank(lines);
  if (isPaneDeadLine(bottomLine)) return { shape: 'exited', why: 'pane_dead' };

  const box = editor(lines, v);
  const known = lines.some((l) => v.header.test(l) || v.hints.test(l) || v.startupNote.test(l));
  if (box === null) {
    if (isShellPromptLine(bottomLine)) return { shape: 'exited', why: 'shell_prompt' };
    return known
      ? {
          shape: 'cli',
          dialog: null,
          prompt: null,
          active: [],
          outcome: null,
          projection: '',
          live: [],
        }
      : { shape: 'unrecognised' };
  }

  const draft = lines
    .slice(box.top + 1, box.bottom)
    .map((l) => l.trim())
    .join('\n')
    .trim();
  const above = lines.slice(0, box.top);
  const live = lastNonBlank(above);
  const active: string[] = [];
  if (v.working.test(live)) active.push('working');
  if (v.retrying.test(live)) active.push('retrying');
  const transcript = active.length > 0 ? above.slice(0, above.lastIndexOf(live)) : above;
  const footer = lines.slice(box.bottom + 1);

  // The turn's last line tells how it ended; a reply has no marker of its own, so a turn
  // counts as finished when the footer carries the token counters a finished reply leaves.
  const last = lastNonBlank(transcript);
  let outcome: TurnOutcome | null = null;
  const error = v.error.exec(last);
  if (v.aborted.test(last) || v.retryCancelled.test(last)) outcome = { kind: 'interrupted' };
  else if (error) outcome = { kind: 'failed', failure: failureFrom(error[1]!, v.failures) };
  else if (
    footer.some((l) => v.tokens.test(l)) &&
    !v.hints.test(last) &&
    !transcript.slice(-2).some((l) => v.header.test(l))
  ) {
    outcome = { kind: 'finished' };
  }
  return {
    shape: 'cli',
    dialog: null,
    prompt: { mode: 'freeform', editing: draft !== '' },
    active,
    outcome,
    projection: transcript.join('\n').trim(),
    live: [live, ...footer],
    spinnerPlace: [live],
  };
}
