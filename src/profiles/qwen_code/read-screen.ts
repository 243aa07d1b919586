import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { findRuleBox, lastIndexWhere } from '../internal/layout.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { QwenCodeVocabulary } from './vocabulary.js';

type Markers = Pick<QwenCodeVocabulary, 'echo' | 'reply' | 'cancelled' | 'apiError'>;

/** The latest turn's outcome: its last cancel note, error or reply after the last prompt echo. */
function latestOutcome(
  transcript: readonly string[],
  v: QwenCodeVocabulary,
  m: Markers = v,
): TurnOutcome | null {
  const echo = lastIndexWhere(transcript, (l) => m.echo.test(l));
  // No echo and no header: a long reply scrolled its prompt away; all of the screen is the turn.
  if (echo < 0 && transcript.some((l) => v.header.test(l))) return null;
  const turn = transcript.slice(echo + 1);
  for (let i = turn.length - 1; i >= 0; i--) {
    const line = turn[i]!;
    if (m.cancelled.test(line)) return { kind: 'interrupted' };
    const error = m.apiError.exec(line);
    if (error) {
      const message = error[1]!.replace(/\]\s*(?:\(Press Ctrl\+Y to retry\))?$/, '');
      return { kind: 'failed', failure: failureFrom(message, v.failures) };
    }
    if (m.reply.test(line)) return { kind: 'finished' };
  }
  return null;
}

/**
 * Why the latest turn says the chat's context is in trouble: an error message of the turn (its
 * line joined with the lines indented under it, where a long message wraps) that the vocabulary
 * names; undefined when none does. The boxed view only: no screen-reader recording shows one.
 */
function contextTrouble(transcript: readonly string[], v: QwenCodeVocabulary): string | undefined {
  const echo = lastIndexWhere(transcript, (l) => v.echo.test(l));
  if (echo < 0 && transcript.some((l) => v.header.test(l))) return undefined;
  const turn = transcript.slice(echo + 1);
  let found: string | undefined;
  for (let i = 0; i < turn.length; i++) {
    const error = v.apiError.exec(turn[i]!);
    if (!error) continue;
    const parts = [error[1]!.trim()];
    for (let j = i + 1; j < turn.length && /^ {4}\S/.test(turn[j]!); j++)
      parts.push(turn[j]!.trim());
    const message = parts.join(' ');
    found = v.contextTrouble.find((c) => c.re.test(message))?.type ?? found;
  }
  return found;
}

/**
 * The screen-reader view: plain lines, from the top the transcript, the footer (`? for
 * shortcuts`), the items still being drawn (the reply being streamed, a running tool, the latest
 * error or cancel note), the status row (`responding <phrase> (3s · esc to cancel)`), one rule
 * and last the prompt line. Dialogs take the rule's and the prompt line's place. Null when the
 * screen is not this view.
 */
function readScreenReaderView(lines: string[], v: QwenCodeVocabulary): ScreenReading | null {
  const sr = v.screenReader;
  const promptAt = lines.length - 1;
  const prompt = sr.prompt.exec(lines[promptAt] ?? '');
  const ruleAt = promptAt - 1;
  if (!prompt || ruleAt < 0 || !v.rule.test(lines[ruleAt]!)) return null;
  const editing = isDraft((prompt[1] ?? '').trim(), v);
  const cli = { shape: 'cli' as const, dialog: null };
  // While the CLI starts, its note stands over the rule and no footer is drawn yet.
  if (sr.initializing.test(lines[ruleAt - 1] ?? '')) {
    return {
      ...cli,
      active: [],
      outcome: null,
      prompt: { mode: 'unknown', editing, context: 'startup' },
      projection: '',
      live: lines.slice(0, ruleAt),
    };
  }
  const footer = lastIndexWhere(lines, (l) => sr.footer.test(l), ruleAt);
  if (footer < 0) return null;
  // The live region: the footer down to the rule. The items still being drawn stand there; they
  // belong to the latest turn too, so its outcome is read over both, status rows left out.
  const live = lines.slice(footer, ruleAt);
  const active = [
    ...(live.some((l) => sr.working.test(l)) ? ['screen_reader_responding'] : []),
    ...(sr.busy !== null && live.some((l) => sr.busy!.test(l)) ? ['busy_footer'] : []),
  ];
  const transcript = lines.slice(0, footer);
  const pending = lines.slice(footer + 1, ruleAt).filter((l) => !sr.working.test(l));
  return {
    ...cli,
    active,
    outcome: latestOutcome([...transcript, ...pending], v, sr),
    projection: transcript.join('\n').trim(),
    live,
    spinnerPlace: live.slice(-2),
    prompt: { mode: 'freeform', editing },
  };
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
    const screenReader = readScreenReaderView(lines, v);
    if (screenReader) return screenReader;
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
    if (v.exitNote?.test(bottom)) return { shape: 'exited', why: 'exit_message' };
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    // A notice printed before the interface is drawn: the CLI still starts.
    const first = lines.find((l) => l.trim() !== '') ?? '';
    if (v.startupNotice?.test(first)) {
      return {
        ...cli,
        dialog: null,
        prompt: { mode: 'unknown', editing: false, context: 'startup' },
        projection: '',
      };
    }
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
  // 0.24 says so under the box too, also before its spinner line is drawn and while a prompt
  // waits in its queue.
  const busyFooter =
    v.busyFooter !== null && lines.slice(box.bottom + 1).some((l) => v.busyFooter!.test(l));
  const active = [...(live ? ['spinner'] : []), ...(busyFooter ? ['busy_footer'] : [])];
  const transcript = live ? above.slice(0, spinner) : above;
  const degraded = contextTrouble(transcript, v);
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing: isDraft(draft, v) },
    active,
    outcome: latestOutcome(transcript, v),
    ...(degraded === undefined ? {} : { degraded }),
    projection: transcript.join('\n').trim(),
    live: [...above.slice(-3), ...lines.slice(box.bottom + 1)],
    spinnerPlace: above.slice(-3),
  };
}

/** The cursor 0.24 (and 0.15) draws after a draft's last letter: a space, then U+200B. */
const CURSOR_AFTER_DRAFT = /\u200b$/;

/** The box holds text someone typed: not the placeholder, nor a follow-up suggestion. */
function isDraft(boxText: string, v: QwenCodeVocabulary): boolean {
  if (boxText === '' || boxText === v.placeholder) return false;
  return !v.suggestionInBox || CURSOR_AFTER_DRAFT.test(boxText);
}
