import type { KnownFailure } from '../../schemas/signals.js';
import type { ScreenReading, TurnOutcome } from '../internal/decide.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { failureFrom } from '../internal/failure.js';
import { screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import type { ClaudeCodeVocabulary } from './vocabulary.js';

/** The regions of one Claude Code screen, found by layout (rules, prompt glyph), not by colour. */
interface ClaudeLayout {
  /** The screen's lines, trimmed at the end (screenLines): a blank line is ''. */
  lines: string[];
  /** The prompt box: the lines between its two rules, the prompt glyph taken off the first. */
  box: { draft: string[] } | null;
  /** Lines above the prompt box (or above a dialog): the transcript plus the live status. */
  above: string[];
  /** Lines below the prompt box: the footer hints. */
  footer: string[];
}

function layout(text: string, v: ClaudeCodeVocabulary): ClaudeLayout {
  const lines = screenLines(text);
  // The prompt box is the last pair of full-width rules whose first inner line starts with ❯.
  for (let bottom = lines.length - 1; bottom > 0; bottom--) {
    if (!v.rule.test(lines[bottom]!)) continue;
    let top = bottom - 1;
    while (top >= 0 && !v.rule.test(lines[top]!)) top--;
    if (top < 0) break;
    const inner = lines.slice(top + 1, bottom);
    if (inner.length > 0 && inner[0]!.startsWith(v.promptGlyph)) {
      const draft = inner.map((l, i) => (i === 0 ? l.slice(v.promptGlyph.length) : l).trim());
      return { lines, box: { draft }, above: lines.slice(0, top), footer: lines.slice(bottom + 1) };
    }
    bottom = top + 1;
  }
  return { lines, box: null, above: lines, footer: [] };
}

interface LatestTurn {
  /** The transcript after the last user prompt echo, or all of it when no echo is visible. */
  lines: string[];
  echoVisible: boolean;
  /**
   * No echo and no logo header on screen: the transcript scrolled past the latest prompt echo
   * (a tall reply or tool output), so everything visible belongs to the latest turn.
   */
  scrolled: boolean;
}

function latestTurn(above: string[], v: ClaudeCodeVocabulary): LatestTurn {
  for (let i = above.length - 1; i >= 0; i--) {
    if (above[i]!.startsWith(`${v.promptGlyph} `)) {
      return { lines: above.slice(i + 1), echoVisible: true, scrolled: false };
    }
  }
  const logo = above.slice(0, 4).some((l) => v.logoHeader.test(l));
  return {
    lines: above,
    echoVisible: false,
    scrolled: !logo && above.some((l) => l !== ''),
  };
}

/** The live edge: the nearest status line above the prompt box, skipping tips and the effort hint. */
function liveStatus(above: string[], v: ClaudeCodeVocabulary): string | null {
  for (let i = above.length - 1; i >= 0 && i >= above.length - 6; i--) {
    const line = above[i]!;
    if (line === '' || v.tipLine.test(line) || v.effortLine.test(line)) continue;
    if (v.edgeNote.test(line)) continue;
    if (/^\s*⎿/.test(line)) continue; // detail line under the status (retry hint)
    return line;
  }
  return null;
}

function knownFailure(turn: string[], v: ClaudeCodeVocabulary): KnownFailure | null {
  const blankMatches = v.apiError.test('');
  for (let i = turn.length - 1; i >= 0; i--) {
    if (turn[i] === '' && !blankMatches) continue;
    const m = v.apiError.exec(turn[i]!);
    if (!m) continue;
    // The message wraps onto indented continuation lines.
    let message = `API Error: ${m[1]!.trim()}`;
    for (let j = i + 1; j < turn.length && /^ {2}\S/.test(turn[j]!); j++) {
      message += ` ${turn[j]!.trim()}`;
    }
    return failureFrom(message, v.failures);
  }
  return null;
}

/** A line the projection leaves out: the live status, a done summary, a tip, the effort hint. */
function chrome(line: string, v: ClaudeCodeVocabulary): boolean {
  return (
    v.statusLine.test(line) ||
    v.doneLine.test(line) ||
    v.retryLine.test(line) ||
    v.tipLine.test(line) ||
    v.effortLine.test(line)
  );
}

/** Transcript text with the live edge and chrome removed: stable while idle. */
function projection(above: string[], v: ClaudeCodeVocabulary): string {
  const out: string[] = [];
  let i = 0;
  // The logo header animates at start-up; only its text matters.
  const blankIsLogo = v.logoHeader.test('');
  const headerEnd = above.findIndex((l) => (l === '' ? blankIsLogo : v.logoHeader.test(l)));
  if (headerEnd >= 0 && headerEnd < 3) i = headerEnd + 3;
  // Most of a screen is blank lines (screenLines leaves them ''): decided once.
  const blankIsChrome = chrome('', v);
  for (; i < above.length; i++) {
    const line = above[i]!;
    if (line === '' ? blankIsChrome : chrome(line, v)) continue;
    out.push(line);
  }
  return out.join('\n').trim();
}

/** The latest turn's last line, the hints the CLI draws under it left out. */
function lastTurnLine(turn: string[], v: ClaudeCodeVocabulary): string {
  for (let i = turn.length - 1; i >= 0; i--) {
    const line = turn[i]!;
    if (line === '' || v.tipLine.test(line) || v.effortLine.test(line)) continue;
    if (v.edgeNote.test(line)) continue;
    return line;
  }
  return '';
}

/**
 * Reads one Claude Code screen: the prompt box, the spinner status line above it, the footer
 * hints, the dialogs that replace the box, and the latest turn of the transcript.
 */
export function readClaudeCodeScreen(screen: Screen, v: ClaudeCodeVocabulary): ScreenReading {
  const s = layout(screen.text, v);
  const nonBlank = s.lines.filter((l) => l !== '');
  if (nonBlank.length === 0) return { shape: 'blank' };

  const last = nonBlank[nonBlank.length - 1]!;
  if (isPaneDeadLine(last)) return { shape: 'exited', why: 'pane_dead' };
  if (s.box === null && isShellPromptLine(last)) return { shape: 'exited', why: 'shell_prompt' };
  if (s.box === null && nonBlank.some((l) => v.exitNote.test(l))) {
    return { shape: 'exited', why: 'exit_message' };
  }

  const cli = { shape: 'cli' as const, outcome: null, active: [] as string[], live: [] };
  if (s.box === null) {
    const tail = nonBlank.slice(-25);
    const permission = tail.findIndex((l) => v.permission.test(l));
    if (permission >= 0 && tail.slice(permission).some((l) => v.dialogOption.test(l))) {
      // The dialog opens with a full-width rule under the transcript; above it is the projection.
      let top = s.lines.lastIndexOf(tail[permission]!);
      while (top > 0 && !v.rule.test(s.lines[top]!)) top--;
      return {
        ...cli,
        dialog: 'permission_prompt',
        prompt: null,
        projection: projection(s.lines.slice(0, top), v),
      };
    }
    const selected = tail.some((l) => v.selectedOption.test(l));
    if (selected && tail.some((l) => v.autoModeDialog.test(l))) {
      return { ...cli, dialog: 'onboarding_prompt', prompt: null, projection: '' };
    }
    if (selected && tail.some((l) => v.trust.test(l))) {
      return { ...cli, dialog: 'trust_prompt', prompt: null, projection: '' };
    }
    const known = nonBlank.some((l) => v.logoHeader.test(l) || v.interruptHint.test(l));
    return known
      ? { ...cli, dialog: null, prompt: null, projection: '' }
      : { shape: 'unrecognised' };
  }

  const footer = s.footer.join('\n');
  const status = liveStatus(s.above, v);
  const active: string[] = [];
  if (v.interruptHint.test(footer)) active.push('esc_to_interrupt');
  if (status !== null && v.statusLine.test(status)) active.push('spinner');
  else if (status !== null && v.unknownStatusLine.test(status)) active.push('status_unknown_glyph');
  if (status !== null && v.retryLine.test(status)) active.push('retrying');

  const draftText = s.box.draft.join('\n').trim();
  const editing = draftText !== '' && !v.placeholders.some((p) => p.test(draftText));
  const slashMenu =
    editing && draftText.startsWith('/') && s.above.slice(-12).some((l) => v.slashMenuItem.test(l));
  const projectionAbove = slashMenu ? s.above.filter((l) => !v.slashMenuItem.test(l)) : s.above;

  const latest = latestTurn(s.above, v);
  const turn = latest.lines;
  let outcome: TurnOutcome | null = null;
  if (v.interrupted.test(lastTurnLine(turn, v))) outcome = { kind: 'interrupted' };
  else {
    const failure = knownFailure(turn, v);
    // Scrolled, the reply's first "● " line may be gone too; the turn's done summary remains.
    const replied =
      turn.some((l) => v.replyLine.test(l) && !v.apiError.test(l)) ||
      (latest.scrolled && turn.some((l) => v.doneLine.test(l)));
    if (failure) outcome = { kind: 'failed', failure };
    else if ((latest.echoVisible || latest.scrolled) && replied) outcome = { kind: 'finished' };
  }
  // The status line's place may hold the reply's last line: no spinner place is given.
  const live = status === null ? s.footer : [status].concat(s.footer);
  return {
    shape: 'cli',
    outcome,
    active,
    live,
    dialog: null,
    prompt: slashMenu
      ? { mode: 'modal', editing, context: 'slash_command' }
      : { mode: 'freeform', editing },
    projection: projection(projectionAbove, v),
  };
}
