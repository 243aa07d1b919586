import type { KnownFailure } from '../../schemas/signals.js';
import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import { isLogoLine, normaliseProjection, type CodexVocabulary } from './vocabulary.js';

/**
 * Why the latest turn says the chat's context is in trouble, from its error cells: each cell is
 * its `■` line joined with the lines it wraps onto (up to a blank line or the next cell), so a
 * narrow terminal that breaks the cell's first words still reads; undefined when none says so.
 */
function contextTrouble(turn: readonly string[], v: CodexVocabulary): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < turn.length; i++) {
    if (!turn[i]!.startsWith('■ ')) continue;
    const parts = [turn[i]!.trimEnd()];
    for (let j = i + 1; j < turn.length && turn[j]!.trim() !== ''; j++) {
      if (/^[■•›]/.test(turn[j]!)) break;
      parts.push(turn[j]!.trim());
    }
    const cell = parts.join(' ');
    for (const c of v.contextErrors) {
      const m = c.cell.exec(cell);
      if (m) found = c.types.find((t) => t.re.test(m[1]!))?.type ?? c.fallback;
    }
  }
  return found;
}

/** The latest turn's outcome: what follows the last prompt echo, up to the live edge. */
function latestOutcome(
  lines: readonly string[],
  v: CodexVocabulary,
): { submitted: boolean; outcome: TurnOutcome | null; degraded: string | undefined } {
  let start = 0;
  let submitted = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.startsWith('› ')) {
      start = i + 1;
      submitted = true;
      break;
    }
  }
  const turn = lines.slice(start);
  let failure: KnownFailure | null = null;
  let interrupted = false;
  for (const line of turn) {
    if (v.interrupted.test(line)) {
      interrupted = true;
      continue;
    }
    const m = v.errorLine.exec(line);
    if (m) failure = failureFrom(m[1]!, v.failures);
  }
  // Only the summary as the turn's last line ends it: a reply line may start the same way.
  const finished = v.turnFinished.test(lastNonBlank(turn));
  const outcome: TurnOutcome | null = interrupted
    ? { kind: 'interrupted' }
    : failure
      ? { kind: 'failed', failure }
      : finished
        ? { kind: 'finished' }
        : null;
  return { submitted, outcome, degraded: contextTrouble(turn, v) };
}

/** Transcript lines worth comparing: no header, logo, timers or live status. */
function projection(lines: readonly string[], v: CodexVocabulary): string {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (v.header.test(line)) {
      // The header's second line is the working folder.
      if (lines[i + 1]?.startsWith('     ')) i++;
      continue;
    }
    if (isLogoLine(line) || v.turnFinished.test(line) || v.statusLine.test(line)) continue;
    kept.push(line);
  }
  return normaliseProjection(kept);
}

/**
 * Reads one Codex CLI screen: the composer (`›`), the status line above it, the footer, the
 * start-up trust question, an approval dialog, and the latest turn of the transcript.
 */
export function readCodexScreen(screen: Screen, v: CodexVocabulary): ScreenReading {
  const lines = screenLines(screen.text);
  if (lines.every((l) => l.trim() === '')) return { shape: 'blank' };
  const bottom = lastNonBlank(lines);
  // tmux's remain-on-exit line, Codex's goodbye text, or a shell prompt back at the bottom.
  if (isPaneDeadLine(bottom)) return { shape: 'exited', why: 'pane_dead' };
  if (
    lines.some((l) => v.exited.some((re) => re.test(l))) &&
    !lines.some((l) => l.startsWith('› '))
  ) {
    return { shape: 'exited', why: 'exit_message' };
  }

  let composer = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i] === '›' || lines[i]!.startsWith('› ')) {
      composer = i;
      break;
    }
  }
  const known =
    composer >= 0 ||
    lines.some((l) => v.header.test(l) || v.shortcutsHint.test(l) || v.statusLine.test(l));
  if (!known) {
    return isShellPromptLine(bottom)
      ? { shape: 'exited', why: 'shell_prompt' }
      : { shape: 'unrecognised' };
  }
  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };

  // The trust question replaces the whole screen at start-up; its selected option starts with `›`.
  if (lines.some((l) => v.trustDialog.some((re) => re.test(l)))) {
    return { ...cli, dialog: 'trust_prompt', prompt: null, projection: '' };
  }
  // A dialog replaces the composer (its selected option also starts with `›`) and ends the
  // screen with its footer; the same words in a reply sit above the composer instead.
  if (v.approvalDialog.footer.test(bottom)) {
    const header = lines.findLastIndex((l) => v.approvalDialog.header.test(l));
    const above = lines.slice(0, header >= 0 ? header : lines.lastIndexOf(bottom));
    return { ...cli, dialog: 'permission_prompt', prompt: null, projection: projection(above, v) };
  }
  if (lines.some((l) => v.warningsOverlay.test(l))) {
    return { ...cli, dialog: null, prompt: null, panel: 'overlay', projection: '' };
  }
  if (composer < 0) return { ...cli, dialog: null, prompt: null, projection: projection(lines, v) };

  // The composer: its first line, indented continuation lines, then the footer.
  let end = composer + 1;
  while (end < lines.length && lines[end]!.startsWith('  ') && !v.modelFooter.test(lines[end]!)) {
    if (v.waitingForStartup.test(lines[end]!)) break;
    end++;
  }
  const draft = [lines[composer]!.slice(2), ...lines.slice(composer + 1, end).map((l) => l.trim())]
    .join('\n')
    .trim();
  const footer = lines.slice(end);
  const editing = draft !== '' && !v.placeholders.includes(draft);

  // The slash-command popup sits right above a composer that holds `/...`.
  let liveTop = composer;
  let popup = false;
  if (draft.startsWith('/')) {
    let i = composer - 1;
    while (i >= 0 && lines[i]!.trim() === '') i--;
    while (i >= 0 && v.slashPopupEntry.test(lines[i]!)) {
      popup = true;
      liveTop = i;
      i--;
    }
  }

  // Live edge: the status line is the first non-blank line above the composer; the footer is below it.
  const active: string[] = [];
  if (v.statusLine.test(lastNonBlank(lines.slice(0, liveTop)))) active.push('status_line');
  const waiting = footer.some((l) => v.waitingForStartup.test(l));
  if (waiting) active.push('waiting_for_startup');

  const transcript = lines.slice(0, liveTop);
  const turn = latestOutcome(transcript, v);
  // Codex draws no status line while reply text streams: an unfinished latest turn is running.
  if (turn.submitted && turn.outcome === null && active.length === 0)
    active.push('turn_in_progress');
  const sessionUp = footer.some((l) => v.modelFooter.test(l));
  const base = {
    ...cli,
    dialog: null,
    active,
    outcome: turn.outcome,
    projection: projection(transcript, v),
    live: [lastNonBlank(lines.slice(0, liveTop)), ...footer],
    ...(turn.degraded === undefined ? {} : { degraded: turn.degraded }),
  };

  if (waiting) return { ...base, prompt: { mode: 'closed', editing: false, context: 'startup' } };
  if (popup) return { ...base, prompt: { mode: 'modal', editing, context: 'slash_command' } };
  // The box is drawn before the session is up; an Enter typed now is not a turn yet.
  if (!sessionUp && active.length === 0) {
    return { ...base, prompt: { mode: 'unknown', editing, context: 'startup' } };
  }
  return { ...base, prompt: { mode: 'freeform', editing } };
}
