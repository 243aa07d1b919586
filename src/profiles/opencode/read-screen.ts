import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { OpencodeVocabulary } from './vocabulary.js';

/** The text of a `┃` line without its bar. */
const blockText = (line: string) => line.replace(/^\s*┃\s?/, '').trim();

/**
 * A line of a `┃` block at the box's left margin. Toasts draw their own `┃` boxes further right
 * over the transcript (error-400); those are not blocks of the conversation.
 */
const atMargin = (margin: number) => (line: string) =>
  line[margin] === '┃' && line.slice(0, margin).trim() === '';

/**
 * How the latest turn ended. Each assistant message ends with its footer (`▣  Build · model`);
 * the footer gains the duration when the turn finished and `interrupted` when it was
 * interrupted. A footer with neither, under a block that is not the turn's prompt, closes a turn
 * that failed: the block holds the error. A block after the last footer is a new prompt.
 */
function latestOutcome(
  transcript: readonly string[],
  v: OpencodeVocabulary,
  isBlock: (line: string) => boolean,
): TurnOutcome | null {
  const footer = transcript.findLastIndex((l) => v.messageFooter.test(l));
  if (footer < 0) return null;
  if (transcript.slice(footer + 1).some(isBlock)) return null;
  const line = transcript[footer]!;
  if (v.interruptedSuffix.test(line)) return { kind: 'interrupted' };
  // The compaction's footer keeps its duration when it failed: its error block says so.
  const compaction = failedCompaction(transcript, v, isBlock);
  if (compaction) return { kind: 'failed', failure: failureFrom(compaction.message, v.failures) };
  if (v.finishedSuffix.test(line)) return { kind: 'finished' };
  // The block right above the footer, and the turn's first block (its prompt).
  let end = footer - 1;
  while (end >= 0 && transcript[end]!.trim() === '') end--;
  if (end < 0 || !isBlock(transcript[end]!)) return null;
  let start = end;
  while (start > 0 && isBlock(transcript[start - 1]!)) start--;
  const previous = transcript.slice(0, start).findLastIndex((l) => v.messageFooter.test(l));
  const firstBlock = transcript.findIndex((l, i) => i > previous && isBlock(l));
  if (firstBlock === start) return null;
  const message = transcript
    .slice(start, end + 1)
    .map(blockText)
    .filter((t) => t !== '')
    .join(' ');
  return message === '' ? null : { kind: 'failed', failure: failureFrom(message, v.failures) };
}

/**
 * The latest compaction's failure: the last message is the compaction's own (`▣  Compaction ·
 * model`, with its duration even when it failed) under an error block, and no prompt follows it.
 * Its message, and why it failed in the tool's terms; undefined for a compaction that worked, or
 * a failed one above a later prompt.
 */
function failedCompaction(
  transcript: readonly string[],
  v: OpencodeVocabulary,
  isBlock: (line: string) => boolean,
): { message: string; type: string } | undefined {
  const footer = transcript.findLastIndex((l) => v.messageFooter.test(l));
  if (footer < 0) return undefined;
  const line = transcript[footer]!;
  if (!v.compactionFooter.test(line) || v.interruptedSuffix.test(line)) return undefined;
  if (transcript.slice(footer + 1).some(isBlock)) return undefined;
  let end = footer - 1;
  while (end >= 0 && transcript[end]!.trim() === '') end--;
  if (end < 0 || !isBlock(transcript[end]!)) return undefined;
  // The error's own lines: up from the block's last text line to its padding row (a `┃` alone),
  // so a prompt block drawn right above it is not part of the message.
  while (end >= 0 && isBlock(transcript[end]!) && blockText(transcript[end]!) === '') end--;
  if (end < 0 || !isBlock(transcript[end]!)) return undefined;
  let start = end;
  while (start > 0 && isBlock(transcript[start - 1]!) && blockText(transcript[start - 1]!) !== '')
    start--;
  const message = transcript
    .slice(start, end + 1)
    .map(blockText)
    .filter((t) => t !== '')
    .join(' ');
  if (message === '') return undefined;
  return {
    message,
    type: v.contextErrors.find((c) => c.re.test(message))?.type ?? v.compactionFailed,
  };
}

/**
 * The start screen: the logo above the box, no conversation. Its transcript is empty, as is
 * that of the new session the CLI opens when the first prompt is submitted (the session view
 * before the prompt's block is drawn). Reading the logo as transcript made that step look like
 * the turn's reply had changed the screen; on a loaded machine Kilo stays there for seconds
 * while it prepares the session (its snapshot), and the turn, seen at an idle prompt with a
 * changed transcript, was ended with no outcome before Kilo even sent the request.
 */
function isStartScreen(
  transcript: readonly string[],
  v: OpencodeVocabulary,
  isBlock: (line: string) => boolean,
): boolean {
  return (
    transcript.some((l) => v.logo.test(l)) &&
    !transcript.some((l) => isBlock(l) || v.messageFooter.test(l))
  );
}

/**
 * Reads one opencode (or Kilo) screen: the prompt box closed by its `╹▀▀▀` bar, the status row
 * under it, the permission dialog drawn in the box's place, and the latest assistant message's
 * footer. At 160 columns a sidebar fills the right; every line is cut to the box's width first.
 */
export function readOpencodeScreen(screen: Screen, v: OpencodeVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };

  const bar = lines.findLastIndex((l) => v.boxBottom.test(l));
  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  if (bar < 0) {
    const tail = lines.slice(-15);
    for (const dialog of v.permissionDialogs) {
      const title = lines.findLastIndex((l) => dialog.title.test(l));
      if (title < lines.length - 15 || !tail.some((l) => dialog.keys.test(l))) continue;
      let top = title;
      while (top > 0 && v.blockLine.test(lines[top - 1]!)) top--;
      return {
        ...cli,
        dialog: 'permission_prompt',
        prompt: null,
        projection: lines.slice(0, top).join('\n').trim(),
      };
    }
    if (isShellPromptLine(bottom)) return { shape: 'exited', why: 'shell_prompt' };
    if (lines.some((l) => v.exitNote.test(l))) return { shape: 'exited', why: 'exit_message' };
    const known = lines.some((l) => v.logo.test(l) || v.idleHint.test(l));
    return known
      ? { ...cli, dialog: null, prompt: null, projection: '' }
      : { shape: 'unrecognised' };
  }

  const width = lines[bar]!.trimEnd().length;
  const cut = (l: string) => l.slice(0, width).trimEnd();
  let boxTop = bar;
  const inBox = atMargin(lines[bar]!.indexOf('╹'));
  while (boxTop > 0 && inBox(lines[boxTop - 1]!)) boxTop--;
  const content = lines
    .slice(boxTop, bar)
    .map((l) => blockText(cut(l)))
    .filter((t) => t !== '');
  // The last line names the agent and model; what is above it is the draft.
  const draftLines = v.agentLine.test(content.at(-1) ?? '') ? content.slice(0, -1) : content;
  const draft = draftLines.join('\n');
  const editing = draft !== '' && !v.placeholder.test(draft);

  const status = lines.slice(bar + 1).find((l) => l.trim() !== '') ?? '';
  const active: string[] = [];
  if (v.workingBar.test(status)) active.push('working_bar');
  if (v.interruptHint.test(status)) active.push('esc_interrupt');
  if (v.retrying.test(status)) active.push('retrying');

  // The status row's left part is blank, the folder, or the working bar and its hint; anything
  // else there (another spinner, a new hint) is not known to mean idle.
  const left = status.trim().split(/\s{2,}/)[0] ?? '';
  const unexplained =
    active.length === 0 && left !== '' && !/^(?:[/~]|tab\b|ctrl\+|\d)/.test(left)
      ? left
      : undefined;
  const transcript = lines.slice(0, boxTop).map(cut);
  const isBlock = atMargin(lines[bar]!.indexOf('╹'));
  // A prompt block after the last message footer: the turn was submitted and its reply has not
  // started (opencode shows no working bar for a second or two on a loaded machine).
  const footer = transcript.findLastIndex((l) => v.messageFooter.test(l));
  if (active.length === 0 && transcript.slice(footer + 1).some(isBlock)) active.push('prompt_sent');
  const compaction = failedCompaction(transcript, v, isBlock);
  const degraded = compaction?.type;
  return {
    ...cli,
    dialog: null,
    prompt: { mode: 'freeform', editing },
    active,
    outcome: latestOutcome(transcript, v, isBlock),
    projection: isStartScreen(transcript, v, isBlock) ? '' : transcript.join('\n').trim(),
    live: lines.slice(bar + 1),
    ...(unexplained === undefined ? {} : { unexplained }),
    ...(degraded === undefined ? {} : { degraded }),
  };
}
