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
 * The compaction's failure that ends the transcript: its last paragraph (the lines up to a
 * blank one, a long message wrapped onto several) starts with one of pi's compaction failures.
 * Anything pi draws after it (a later prompt, its reply) ends the paragraph: history, undefined.
 */
function contextTrouble(
  transcript: readonly string[],
  v: PiVocabulary,
): { type: string; top: number } | undefined {
  let end = transcript.length - 1;
  while (end >= 0 && transcript[end]!.trim() === '') end--;
  if (end < 0) return undefined;
  let top = end;
  while (top > 0 && transcript[top - 1]!.trim() !== '') top--;
  // Joined, so a narrow terminal that breaks the first words still reads.
  const text = ` ${transcript
    .slice(top, end + 1)
    .map((l) => l.trim())
    .join(' ')}`;
  const found = v.contextErrors.find((c) => c.re.test(text));
  return found ? { type: found.type, top } : undefined;
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
  if (v.compacting.test(live)) active.push('compacting');
  const transcript = active.length > 0 ? above.slice(0, above.lastIndexOf(live)) : above;
  const footer = lines.slice(box.bottom + 1);
  // A failed compaction closes the transcript: the turn's own end is above it.
  const trouble = contextTrouble(transcript, v);
  const turn = trouble ? transcript.slice(0, trouble.top) : transcript;

  // The turn's last line tells how it ended; a reply has no marker of its own, so a turn
  // counts as finished when the footer carries the token counters a finished reply leaves.
  const last = lastNonBlank(turn);
  let outcome: TurnOutcome | null = null;
  const error = v.error.exec(last);
  if (v.aborted.test(last) || v.retryCancelled.test(last)) outcome = { kind: 'interrupted' };
  else if (error) outcome = { kind: 'failed', failure: failureFrom(error[1]!, v.failures) };
  else if (
    footer.some((l) => v.tokens.test(l)) &&
    !v.hints.test(last) &&
    !turn.slice(-2).some((l) => v.header.test(l))
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
    ...(trouble ? { degraded: trouble.type } : {}),
  };
}
