import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { GrokCliVocabulary } from './vocabulary.js';

/**
 * The latest turn's end: the cancel note under its reply, its error item, or its last item; and
 * why its error item says the conversation no longer fits the model's window, if it does.
 */
function latestOutcome(
  transcript: readonly string[],
  v: GrokCliVocabulary,
): { outcome: TurnOutcome | null; degraded?: string } {
  const echo = lastIndexWhere(transcript, (l) => v.echo.test(l));
  if (echo < 0) return { outcome: null };
  const turn = transcript.slice(echo + 1);
  if (v.cancelled.test(lastNonBlank(turn))) return { outcome: { kind: 'interrupted' } };
  const item = lastIndexWhere(turn, (l) => v.item.test(l));
  if (item < 0) return { outcome: null };
  const error = v.error.exec(turn[item]!);
  if (error) {
    const rest = turn.slice(item + 1).filter((l) => /^ {4}\S/.test(l));
    const message = [error[1]!, ...rest.map((l) => l.trim())].join(' ');
    const degraded = v.contextErrors.find((c) => c.re.test(message))?.type;
    return {
      outcome: { kind: 'failed', failure: failureFrom(message, v.failures) },
      ...(degraded === undefined ? {} : { degraded }),
    };
  }
  return { outcome: { kind: 'finished' } };
}

/**
 * Reads one grok-cli screen: the rounded prompt box, the working line above it, the
 * confirmation drawn in its place, and the latest turn after the last prompt echo.
 */
export function readGrokCliScreen(screen: Screen, v: GrokCliVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };

  const boxEnd = lastIndexWhere(lines, (l) => v.boxBottom.test(l));
  const boxStart = boxEnd < 0 ? -1 : lastIndexWhere(lines, (l) => v.boxTop.test(l), boxEnd);
  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  const inside = boxStart < 0 || boxEnd - boxStart > 12 ? [] : lines.slice(boxStart + 1, boxEnd);
  // An Enter read together with the paste before it is taken into the draft as a carriage
  // return, and the box is drawn garbled around it (enter-in-paste): every line still ends at a
  // border, none reads as the box's. The box holds a draft; what it says cannot be read.
  const placed = inside.length > 0 && v.boxLine.test(inside[0]!);
  const garbled = !placed && inside.length > 0 && inside.every((l) => v.boxEdge.test(l));
  if (!placed && !garbled) {
    const title = lastIndexWhere(lines, (l) => v.permission.test(l));
    if (title >= 0 && lines.slice(title).some((l) => v.permissionKeys.test(l))) {
      return {
        ...cli,
        dialog: 'permission_prompt',
        prompt: null,
        projection: lines.slice(0, title).join('\n').trim(),
      };
    }
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    return lines.some((l) => v.banner.test(l) || v.starting.test(l))
      ? { ...cli, dialog: null, prompt: null, projection: '' }
      : { shape: 'unrecognised' };
  }

  const draft = inside
    .map((l) => (v.boxLine.exec(l)?.[1] ?? l.replace(/^\s*│\s?|\s*│$/g, '')).trim())
    .join('\n')
    .trim();
  const above = lines.slice(0, boxStart);
  const live = lastNonBlank(above);
  const active = v.working.test(live) ? ['working'] : [];
  // While the reply streams a cursor block (`█`) sits on its own line under it.
  const transcript = (active.length > 0 ? above.slice(0, above.lastIndexOf(live)) : above).filter(
    (l) => l.trim() !== '█',
  );
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing: garbled || (draft !== '' && draft !== v.placeholder) },
    active,
    ...latestOutcome(transcript, v),
    projection: transcript.join('\n').trim(),
    live: [live, ...lines.slice(boxEnd + 1)],
    spinnerPlace: [live],
  };
}
