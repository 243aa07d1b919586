import type {
  BlockedPromptKind,
  KnownFailure,
  ParsedSurface,
  ProfileResult,
  TriState,
  TurnSignals,
} from '../../schemas/signals.js';
import { NO_SIGNALS } from '../../schemas/signals.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { boundMessage } from '../internal/failure.js';
import { lastNonBlank, screenLines } from '../internal/lines.js';
import type { Screen } from '../types.js';
import { isLogoLine, normaliseProjection, type CodexStrings } from './screen.js';

interface Verdict {
  surface: ParsedSurface;
  signals: Partial<TurnSignals>;
  rule: string;
}

const surface = (
  availability: ParsedSurface['availability'],
  businessState: ParsedSurface['businessState'],
  inputMode: ParsedSurface['inputMode'],
  uiContext: string,
  projectionText: string,
): ParsedSurface => ({ availability, businessState, inputMode, uiContext, projectionText });

/** The turn the screen shows last: what follows the last prompt echo, up to the live edge. */
interface LatestTurn {
  /** A prompt echo is on screen (a turn was submitted). */
  submitted: boolean;
  finished: boolean;
  interrupted: boolean;
  failure: KnownFailure | null;
}

function readLatestTurn(lines: readonly string[], s: CodexStrings): LatestTurn {
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
    if (s.interrupted.test(line)) {
      interrupted = true;
      continue;
    }
    const m = s.errorLine.exec(line);
    if (m) {
      const message = boundMessage(m[1]!);
      failure = { kind: s.failures.find((f) => f.re.test(message))?.kind ?? 'error', message };
    }
  }
  // Only the summary as the turn's last line ends it: a reply line may start the same way.
  const finished = s.turnFinished.test(lastNonBlank(turn));
  return { submitted, finished, interrupted, failure };
}

/** Transcript lines worth comparing: no header, logo, timers or live status. */
function projection(lines: readonly string[], s: CodexStrings): string {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (s.header.test(line)) {
      // The header's second line is the working folder.
      if (lines[i + 1]?.startsWith('     ')) i++;
      continue;
    }
    if (isLogoLine(line) || s.turnFinished.test(line) || s.statusLine.test(line)) continue;
    kept.push(line);
  }
  return normaliseProjection(kept);
}

function verdict(lines: string[], s: CodexStrings): Verdict {
  if (lines.every((l) => l.trim() === '')) {
    return {
      surface: surface('unknown', 'unknown', 'unknown', 'blank', ''),
      signals: {},
      rule: 'blank',
    };
  }
  const bottom = lastNonBlank(lines);
  // tmux's remain-on-exit line, Codex's goodbye text, or a shell prompt back at the bottom.
  if (isPaneDeadLine(bottom)) {
    return {
      surface: surface('disconnected', 'unknown', 'closed', 'exited', ''),
      signals: {},
      rule: 'pane_dead',
    };
  }
  if (
    lines.some((l) => s.exited.some((re) => re.test(l))) &&
    !lines.some((l) => l.startsWith('› '))
  ) {
    return {
      surface: surface('disconnected', 'unknown', 'closed', 'exited', ''),
      signals: {},
      rule: 'exit_message',
    };
  }

  let composer = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i] === '›' || lines[i]!.startsWith('› ')) {
      composer = i;
      break;
    }
  }
  const recognised =
    composer >= 0 ||
    lines.some((l) => s.header.test(l) || s.shortcutsHint.test(l) || s.statusLine.test(l));
  if (!recognised) {
    if (isShellPromptLine(bottom)) {
      return {
        surface: surface('disconnected', 'unknown', 'closed', 'shell', ''),
        signals: {},
        rule: 'shell_prompt',
      };
    }
    return {
      surface: surface('unknown', 'unknown', 'unknown', 'unrecognised', ''),
      signals: {},
      rule: 'unrecognised',
    };
  }

  // The trust question replaces the whole screen at start-up; its selected option starts with `›`.
  if (lines.some((l) => s.trustDialog.some((re) => re.test(l)))) {
    return {
      surface: surface('supported', 'awaiting_operator', 'modal', 'trust_folder', ''),
      signals: {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        blockedPrompt: 'trust_folder' satisfies BlockedPromptKind,
      },
      rule: 'trust_folder',
    };
  }
  // A dialog replaces the composer (its selected option also starts with `›`) and ends the
  // screen with its footer; the same words in a reply sit above the composer instead.
  if (s.approvalDialog.footer.test(bottom)) {
    const header = lines.findLastIndex((l) => s.approvalDialog.header.test(l));
    const above = lines.slice(0, header >= 0 ? header : lines.lastIndexOf(bottom));
    return {
      surface: surface(
        'supported',
        'awaiting_operator',
        'modal',
        'permission_prompt',
        projection(above, s),
      ),
      signals: {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        blockedPrompt: 'tool_permission' satisfies BlockedPromptKind,
      },
      rule: 'permission_prompt',
    };
  }
  if (lines.some((l) => s.warningsOverlay.test(l))) {
    return {
      surface: surface('supported', 'idle', 'modal', 'warnings', ''),
      signals: { acceptingInput: 'no', readyPosture: 'no' },
      rule: 'warnings_overlay',
    };
  }
  if (composer < 0) {
    return {
      surface: surface('supported', 'unknown', 'unknown', 'no_composer', projection(lines, s)),
      signals: { ambiguous: true },
      rule: 'no_composer',
    };
  }

  // The composer: its first line, indented continuation lines, then the footer.
  let end = composer + 1;
  while (end < lines.length && lines[end]!.startsWith('  ') && !s.modelFooter.test(lines[end]!)) {
    if (s.waitingForStartup.test(lines[end]!)) break;
    end++;
  }
  const draft = [lines[composer]!.slice(2), ...lines.slice(composer + 1, end).map((l) => l.trim())]
    .join('\n')
    .trim();
  const footer = lines.slice(end);
  const hasDraft = draft !== '' && !s.placeholders.includes(draft);

  // The slash-command popup sits right above a composer that holds `/...`.
  let liveTop = composer;
  let popup = false;
  if (draft.startsWith('/')) {
    let i = composer - 1;
    while (i >= 0 && lines[i]!.trim() === '') i--;
    while (i >= 0 && s.slashPopupEntry.test(lines[i]!)) {
      popup = true;
      liveTop = i;
      i--;
    }
  }

  // Live edge: the status line is the first non-blank line above the composer; the footer is below it.
  const activeReasons: string[] = [];
  if (s.statusLine.test(lastNonBlank(lines.slice(0, liveTop)))) activeReasons.push('status_line');
  const waiting = footer.some((l) => s.waitingForStartup.test(l));
  if (waiting) activeReasons.push('waiting_for_startup');

  const transcript = lines.slice(0, liveTop);
  const turn = readLatestTurn(transcript, s);
  // Codex draws no status line while reply text streams: an unfinished latest turn is running.
  const outcome = turn.finished || turn.interrupted || turn.failure !== null;
  if (turn.submitted && !outcome && activeReasons.length === 0)
    activeReasons.push('turn_in_progress');
  const working = activeReasons.length > 0;
  const sessionUp = footer.some((l) => s.modelFooter.test(l));
  const proj = projection(transcript, s);
  const base: Partial<TurnSignals> = {
    interrupted: turn.interrupted && !working,
    knownFailure: working ? null : turn.failure,
    successCandidate: !working && turn.finished && !turn.interrupted && turn.failure === null,
    activeReasons,
  };

  if (waiting) {
    return {
      surface: surface('supported', 'working', 'closed', 'startup', proj),
      signals: { ...base, acceptingInput: 'no', editingInput: 'no', readyPosture: 'no' },
      rule: 'waiting_for_startup',
    };
  }
  const editingInput: TriState = hasDraft ? 'yes' : 'no';
  if (popup) {
    return {
      surface: surface('supported', working ? 'working' : 'idle', 'modal', 'slash_command', proj),
      signals: { ...base, acceptingInput: 'yes', editingInput, readyPosture: 'no' },
      rule: 'slash_popup',
    };
  }
  if (!sessionUp && !working) {
    // The box is drawn before the session is up; an Enter typed now is not a turn yet.
    return {
      surface: surface('supported', 'idle', 'unknown', 'startup', proj),
      signals: { ...base, acceptingInput: 'unknown', editingInput, readyPosture: 'no' },
      rule: 'startup',
    };
  }
  if (working) {
    return {
      surface: surface('supported', 'working', 'freeform', 'normal_prompt', proj),
      signals: { ...base, acceptingInput: 'yes', editingInput, readyPosture: 'no' },
      rule: activeReasons[0]!,
    };
  }
  const rule = turn.interrupted
    ? 'interrupted'
    : turn.failure
      ? 'known_failure'
      : turn.finished
        ? 'turn_finished'
        : 'idle_prompt';
  return {
    surface: surface(
      'supported',
      'idle',
      'freeform',
      turn.failure ? 'error' : 'normal_prompt',
      proj,
    ),
    signals: { ...base, acceptingInput: 'yes', editingInput, readyPosture: 'yes' },
    rule,
  };
}

/** Parses one Codex CLI screen with one version's strings. */
export function parseCodexScreen(
  screen: Screen,
  strings: CodexStrings,
  label: string,
): ProfileResult {
  const v = verdict(screenLines(screen.text), strings);
  const supported = v.surface.availability === 'supported';
  return {
    surface: v.surface,
    signals: {
      ...NO_SIGNALS,
      chatContext: supported ? 'current' : 'unknown',
      ...v.signals,
      // Never the shared NO_SIGNALS array: a caller may keep or extend what it gets.
      activeReasons: [...(v.signals.activeReasons ?? [])],
    },
    evidence: { detector: `codex@${label}`, rule: v.rule },
  };
}
