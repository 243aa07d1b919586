import type { DialogContext } from '../../schemas/signals.js';
import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { GeminiCliVocabulary } from './vocabulary.js';

/** The regions of one Gemini CLI screen, found from its fixed chrome. */
interface GeminiLayout {
  lines: string[];
  /** Index of the prompt box's top bar, or -1 when no prompt box is drawn. */
  inputTop: number;
  /** The prompt box's text without the ` > ` marker; '' when it shows the placeholder. */
  draft: string;
  /** End of the transcript: the status area's first line, or the end of the screen without a box. */
  transcriptEnd: number;
  /** The status area between transcript and box; without a box, the last 12 lines. */
  liveEdge: string[];
  /** Index of the line after the latest prompt echo in the transcript; 0 when none is visible. */
  latestTurnStart: number;
  hasFooter: boolean;
}

/** The box bars of every prompt echo and of the prompt box (pairs of top/bottom bar indices). */
function boxes(lines: string[], v: GeminiCliVocabulary): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let top = -1;
  lines.forEach((line, i) => {
    const t = line.trim();
    if (v.topBar.test(t)) top = i;
    else if (v.bottomBar.test(t) && top >= 0) {
      out.push([top, i]);
      top = -1;
    }
  });
  return out;
}

function nextNonBlank(lines: string[], from: number): number {
  for (let i = from; i < lines.length; i++) if (lines[i]!.trim() !== '') return i;
  return -1;
}

function layout(text: string, v: GeminiCliVocabulary): GeminiLayout {
  const lines = screenLines(text);
  const all = boxes(lines, v);
  // The prompt box is the last box, when the footer (or nothing) follows it or the rule over
  // the prompt area precedes it (slash-command suggestions sit between the box and the footer).
  let input: [number, number] | null = null;
  const last = all[all.length - 1];
  if (last) {
    const after = nextNonBlank(lines, last[1] + 1);
    const ruleAbove = lines
      .slice(Math.max(0, last[0] - 3), last[0])
      .some((l) => v.rule.test(l.trim()));
    if (after === -1 || v.footer.test(lines[after]!) || ruleAbove) input = last;
  }
  const echoes = input ? all.slice(0, -1) : all;
  let draft = '';
  let transcriptEnd = lines.length;
  let liveEdge: string[] = [];
  if (input) {
    draft = lines
      .slice(input[0] + 1, input[1])
      .map((l) => l.replace(/^\s*>\s?/, '').trim())
      .join('\n')
      .trim();
    if (draft === v.placeholder) draft = '';
    // Status area: from the line above the rule over the prompt box down to the box.
    let rule = -1;
    for (let i = input[0] - 1; i >= Math.max(0, input[0] - 4); i--) {
      if (v.rule.test(lines[i]!.trim())) {
        rule = i;
        break;
      }
    }
    const status = rule > 0 ? lines[rule - 1]! : '';
    const statusLine = rule > 0 && (status.trim() === '' || v.statusLine.test(status));
    transcriptEnd = rule < 0 ? input[0] : statusLine ? rule - 1 : rule;
    liveEdge = lines.slice(transcriptEnd, input[0]);
  } else {
    liveEdge = lines.slice(-12);
  }
  const lastEcho = echoes.filter(([, bottom]) => bottom < transcriptEnd).pop();
  return {
    lines,
    inputTop: input ? input[0] : -1,
    draft,
    transcriptEnd,
    liveEdge,
    latestTurnStart: lastEcho ? lastEcho[1] + 1 : 0,
    hasFooter: lines.some((l) => v.footer.test(l)),
  };
}

function projection(s: GeminiLayout, v: GeminiCliVocabulary): string {
  return s.lines
    .slice(0, s.transcriptEnd)
    .filter((l) => !v.active.test(l) && !v.idleHint.test(l))
    .join('\n')
    .trim();
}

/**
 * The queue notice as the CLI draws it: the notice, the queued prompt's lines indented by four,
 * and nothing else down to the status area. Text between it and the status area is a reply.
 */
function hasQueuedPrompt(s: GeminiLayout, v: GeminiCliVocabulary): boolean {
  const transcript = s.lines.slice(0, s.transcriptEnd);
  const at = transcript.findLastIndex((l) => v.queued.test(l));
  if (at < 0) return false;
  const rest = transcript.slice(at + 1).filter((l) => l.trim() !== '');
  return rest.length > 0 && rest.every((l) => v.queuedPrompt.test(l));
}

/** The latest turn's outcome marker, searched in the lines after its prompt echo. */
function outcomeOf(
  latest: readonly string[],
  hasReply: boolean,
  v: GeminiCliVocabulary,
  markers: { interrupted: RegExp; apiError: RegExp } = v,
): TurnOutcome | null {
  const errorLine = latest.find((l) => markers.apiError.test(l));
  return latest.some((l) => markers.interrupted.test(l))
    ? { kind: 'interrupted' }
    : errorLine
      ? { kind: 'failed', failure: failureFrom(errorLine.trim(), v.failures) }
      : hasReply
        ? { kind: 'finished' }
        : null;
}

/**
 * Why the latest turn says the chat's context is in trouble, from its notices: each is its
 * glyph's line joined with the lines indented under it (a notice wider than the terminal wraps
 * onto them), so a narrow terminal still reads; undefined when none says so. The last such
 * notice of the turn gives the reason.
 */
function contextTrouble(latest: readonly string[], v: GeminiCliVocabulary): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < latest.length; i++) {
    if (!v.notice.test(latest[i]!)) continue;
    const parts = [latest[i]!.trimEnd()];
    for (let j = i + 1; j < latest.length && /^ {2}\S/.test(latest[j]!); j++)
      parts.push(latest[j]!.trim());
    const notice = parts.join(' ');
    found = v.contextTrouble.find((c) => c.re.test(notice))?.type ?? found;
  }
  return found;
}

/**
 * The screen-reader view (`ui.accessibility.screenReader`): the same parts as plain lines, no box
 * bars, no banner. From the top: the transcript, the first-run note, the footer, the reply being
 * streamed, the status rows (`responding Thinking... (esc to cancel, 3s)`, `? for shortcuts`,
 * the approval mode) and last the prompt line `>  …`. Dialogs take the prompt line's place.
 * Null when the screen is not this view: the prompt line must be the last line and the footer
 * drawn above it.
 */
function readScreenReaderView(lines: string[], v: GeminiCliVocabulary): ScreenReading | null {
  const sr = v.screenReader;
  const footer = lines.findLastIndex((l) => v.footer.test(l));
  if (footer < 0) return null;
  // The first-run note stands right above the footer, wrapped to the width (three lines at 120).
  const nudge = lines.slice(0, footer).findLastIndex((l) => sr.nudge.test(l));
  const transcriptEnd = nudge >= 0 && footer - nudge <= 6 ? nudge : footer;
  const transcript = lines.slice(0, transcriptEnd);
  const promptAt = lines.length - 1;
  const prompt = sr.prompt.exec(lines[promptAt] ?? '');
  if (!prompt) {
    // A dialog in the prompt line's place: only the retry dialog differs from the boxed view.
    if (!lines.slice(footer + 1).some((l) => sr.quotaDialog.test(l))) return null;
    return {
      shape: 'cli',
      dialog: 'retry_prompt',
      prompt: null,
      active: [],
      outcome: null,
      projection: transcript.join('\n').trim(),
      live: [],
    };
  }
  // The live region: from the footer down to the prompt line (the reply being streamed and the
  // status rows). The reply moves into the transcript when the turn ends.
  const live = lines.slice(footer, promptAt);
  const typed = (prompt[1] ?? '').trim();
  const editing = typed !== '' && typed !== v.placeholder;
  const active = live.some((l) => sr.working.test(l)) ? ['screen_reader_responding'] : [];
  const echo = transcript.findLastIndex((l) => sr.echo.test(l));
  const latest = transcript.slice(echo + 1);
  const outcome =
    echo < 0
      ? null
      : outcomeOf(
          latest,
          latest.some((l) => sr.reply.test(l)),
          v,
          sr,
        );
  const started = echo >= 0 || transcript.some((l) => sr.reply.test(l));
  return {
    shape: 'cli',
    dialog: null,
    active,
    outcome,
    projection: transcript.join('\n').trim(),
    live,
    spinnerPlace: live.slice(-3),
    // No banner in this view: before the first turn the prompt line is all there is to read.
    prompt: started
      ? { mode: 'freeform', editing }
      : { mode: 'freeform', editing, context: 'startup' },
  };
}

/**
 * Reads one Gemini CLI screen: the prompt box and the status area above it, the dialogs drawn
 * over the box, and the latest turn of the transcript.
 */
export function readGeminiCliScreen(screen: Screen, v: GeminiCliVocabulary): ScreenReading {
  const s = layout(screen.text, v);
  if (s.lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const hasInput = s.inputTop >= 0;

  // The CLI has exited: tmux's dead-pane note under its last screen, its goodbye box, or a
  // shell prompt below the last CLI screen.
  const tail = lastNonBlank(s.lines);
  if (isPaneDeadLine(tail)) return { shape: 'exited', why: 'pane_dead' };
  if (!hasInput && s.lines.some((l) => v.goodbye.test(l)))
    return { shape: 'exited', why: 'goodbye' };
  if (!hasInput && isShellPromptLine(tail)) return { shape: 'exited', why: 'shell_prompt' };

  if (!hasInput) {
    const screenReader = readScreenReaderView(s.lines, v);
    if (screenReader) return screenReader;
  }

  const projectionText = projection(s, v);
  const spinning = s.liveEdge.some((l) => v.active.test(l));
  const queued = hasInput && hasQueuedPrompt(s, v);
  // Between leaving the queue and its echo, the queued prompt shows nothing but this line.
  const lastTranscriptLine = s.lines
    .slice(0, s.transcriptEnd)
    .filter((l) => l.trim() !== '')
    .at(-1);
  const dispatching = hasInput && v.initializing.test(lastTranscriptLine ?? '');
  const active = [
    ...(spinning ? ['spinner_esc_to_cancel'] : []),
    ...(queued ? ['queued_prompt'] : []),
    ...(dispatching ? ['queued_prompt_dispatching'] : []),
  ];

  // Operator prompts draw over the prompt box, so they live in the bottom rows.
  const bottom = s.lines.slice(-25);
  let dialog: DialogContext | null = null;
  if (!hasInput) {
    if (bottom.some((l) => v.permission.test(l))) dialog = 'permission_prompt';
    else if (bottom.some((l) => v.trust.test(l))) dialog = 'trust_prompt';
    else if (bottom.some((l) => v.auth.test(l))) dialog = 'login_prompt';
    else if (bottom.some((l) => v.quotaDialog.test(l))) dialog = 'retry_prompt';
  }
  const afterBox = hasInput ? s.lines.slice(s.inputTop + 1) : [];
  const cli = {
    shape: 'cli' as const,
    active,
    projection: projectionText,
    // Without a prompt box the live edge is only a guess (a dialog's text): no hint is read there.
    live: hasInput ? [...s.liveEdge, ...afterBox] : [],
    spinnerPlace: hasInput ? s.liveEdge : [],
  };
  if (dialog) return { ...cli, dialog, prompt: null, outcome: null };

  const known = hasInput || s.hasFooter || s.lines.some((l) => v.banner.test(l));
  if (!known) return { shape: 'unrecognised' };
  // Recognisably the CLI, but no prompt box and no known dialog (a menu or picker has focus).
  if (!hasInput) return { ...cli, dialog: null, prompt: null, outcome: null };

  const editing = s.draft !== '';
  // As drawn: `^` in the outcome patterns means column 0.
  const latest = s.lines.slice(s.latestTurnStart, s.transcriptEnd);
  const bannerVisible = s.lines.some((l) => v.banner.test(l));
  // No prompt echo and no banner: a long reply has pushed its own start off the screen, so
  // the whole visible transcript belongs to the latest turn.
  const scrolledIntoTurn =
    s.latestTurnStart === 0 && !bannerVisible && latest.some((l) => l.trim() !== '');
  const hasReply =
    latest.some((l) => v.reply.test(l) && !v.compressionNote.test(l)) || scrolledIntoTurn;
  const outcome = outcomeOf(latest, hasReply, v);
  const slash =
    editing &&
    s.draft.startsWith('/') &&
    s.lines.slice(s.inputTop).some((l) => v.slashSuggestion.test(l));
  const startup = s.latestTurnStart === 0 && !hasReply && bannerVisible;
  // The box is drawn half a second before the banner, and a prompt typed then is lost
  // (startup): with nothing above the status area yet, the CLI does not take input.
  const empty = s.lines.slice(0, s.transcriptEnd).every((l) => l.trim() === '');
  if (empty && !bannerVisible && active.length === 0) {
    return {
      ...cli,
      dialog: null,
      outcome: null,
      prompt: { mode: 'unknown', editing, context: 'startup' },
    };
  }
  const degraded = contextTrouble(latest, v);
  return {
    ...cli,
    dialog: null,
    outcome,
    ...(degraded === undefined ? {} : { degraded }),
    prompt: slash
      ? { mode: 'modal', editing, context: 'slash_command' }
      : startup && active.length === 0 && outcome === null
        ? { mode: 'freeform', editing, context: 'startup' }
        : { mode: 'freeform', editing },
  };
}
