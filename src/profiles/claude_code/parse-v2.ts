import {
  NO_SIGNALS,
  type KnownFailure,
  type ProfileResult,
  type TurnSignals,
} from '../../schemas/signals.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { boundMessage } from '../internal/failure.js';
import type { Screen } from '../types.js';
import { PROMPT_GLYPH, RULE, splitScreen, type ClaudeScreen } from './screen.js';

/** Spinner glyphs Claude Code cycles through in its status line. */
const SPINNER = '·✢✳✶✻✽*';
/** `✻ Gusting… (3s · ↓ 10 tokens)`: a live status line (the verb changes, the ellipsis stays). */
const STATUS_LINE = new RegExp(`^[${SPINNER}] \\S.*…`);
/** `✻ 529 Overloaded · retrying in 1s · attempt 2/2`: the CLI waits to retry a failed request. */
const RETRY_LINE = /retrying in \d+\s*\w* · attempt \d+\/\d+/;
/** `✻ Crunched for 2s · done 8:33 AM`: the finished-turn summary (chrome, not reply). */
const DONE_LINE = new RegExp(`^[${SPINNER}] \\S+ for \\d.*`);
const INTERRUPT_HINT = /esc to interrupt/;
const IDLE_HINT = /\? for shortcuts/;
const TIP_LINE = /^\s*⎿\s+Tip:/;
const EFFORT_LINE = /^\s+\S+ \w+ · \/effort$/;
const LOGO_HEADER = /Claude Code v\d/;
/**
 * The interrupt notice (`⎿`, a space and a no-break space), only as the latest turn's last line:
 * a reply may quote it anywhere.
 */
const INTERRUPTED = /^ {2}⎿ \u00a0Interrupted · What should Claude do instead\?$/;
const API_ERROR = /^● API Error: (.*)$/;
/** Dim hints the CLI puts in an empty prompt box, whole: a draft may start the same way. */
const PLACEHOLDERS = [/^Resend your message to try again$/, /^Try "[^"]+"$/];
const PERMISSION = /^\s*Do you want to (proceed|make this edit|create|allow|run)\b.*\?$/;
const DIALOG_OPTION = /^\s*❯ 1\. /;
const TRUST = /(Yes, I trust this folder|Is this a project you created or one you trust)/;
/** Start-up question for a new user (options "Yes, set auto mode…" / "No, keep manual mode"). */
const AUTO_MODE_DIALOG = /Make auto mode your default permission mode\?/;
/** The highlighted option of a dialog (the trust dialog's options carry no numbers). */
const SELECTED_OPTION = /^\s*❯ \S/;
const SLASH_MENU_ITEM = /^\s+❯? ?\/[a-z][\w-]*\s{2,}\S/;
/** What the CLI prints on its way out, left on screen above the shell prompt. */
const EXIT_NOTE = /^(Resume this session with:|Claude Code didn't start\b)/;

function failureKind(message: string): string {
  if (/\b529\b|Overloaded/i.test(message)) return 'overloaded';
  if (/\b429\b|rate limit/i.test(message)) return 'rate_limited';
  const status = /\b(5\d\d|4\d\d)\b/.exec(message);
  return status ? `api_error_${status[1]}` : 'api_error';
}

interface LatestTurn {
  /** The transcript after the last user prompt echo, or all of it when no echo is visible. */
  lines: string[];
  /** The prompt echo is on screen. */
  echoVisible: boolean;
  /**
   * No echo and no logo header on screen: the transcript scrolled past the latest prompt echo
   * (a tall reply or tool output), so everything visible belongs to the latest turn.
   */
  scrolled: boolean;
}

function latestTurn(above: string[]): LatestTurn {
  for (let i = above.length - 1; i >= 0; i--) {
    if (above[i]!.startsWith(`${PROMPT_GLYPH} `)) {
      return { lines: above.slice(i + 1), echoVisible: true, scrolled: false };
    }
  }
  // The logo header sits at the very top until the transcript scrolls it away.
  const logo = above.slice(0, 4).some((l) => LOGO_HEADER.test(l));
  const scrolled = !logo && above.some((l) => l.trim() !== '');
  return { lines: above, echoVisible: false, scrolled };
}

/** The live edge: the nearest status line above the prompt box, skipping tips and the effort hint. */
function liveStatus(above: string[]): string | null {
  for (let i = above.length - 1; i >= 0 && i >= above.length - 6; i--) {
    const line = above[i]!;
    if (line.trim() === '' || TIP_LINE.test(line) || EFFORT_LINE.test(line)) continue;
    if (/^\s*⎿/.test(line)) continue; // detail line under the status (retry hint)
    return line;
  }
  return null;
}

function knownFailure(turn: string[]): KnownFailure | null {
  for (let i = turn.length - 1; i >= 0; i--) {
    const m = API_ERROR.exec(turn[i]!);
    if (!m) continue;
    // The message wraps onto indented continuation lines.
    let message = `API Error: ${m[1]!.trim()}`;
    for (let j = i + 1; j < turn.length && /^ {2}\S/.test(turn[j]!); j++) {
      message += ` ${turn[j]!.trim()}`;
    }
    return { kind: failureKind(message), message: boundMessage(message) };
  }
  return null;
}

/** Transcript text with the live edge and chrome removed: stable while idle. */
function projection(above: string[]): string {
  const out: string[] = [];
  let i = 0;
  // The logo header animates at start-up; only its text matters.
  const headerEnd = above.findIndex((l) => LOGO_HEADER.test(l));
  if (headerEnd >= 0 && headerEnd < 3) i = headerEnd + 3;
  for (; i < above.length; i++) {
    const line = above[i]!;
    if (STATUS_LINE.test(line) || DONE_LINE.test(line) || RETRY_LINE.test(line)) continue;
    if (TIP_LINE.test(line) || EFFORT_LINE.test(line)) continue;
    out.push(line);
  }
  return out.join('\n').trim();
}

/** The latest turn's last line, the hints the CLI draws under it left out. */
function lastTurnLine(turn: string[]): string {
  for (let i = turn.length - 1; i >= 0; i--) {
    const line = turn[i]!;
    if (line.trim() === '' || TIP_LINE.test(line) || EFFORT_LINE.test(line)) continue;
    return line;
  }
  return '';
}

function baseSignals(): TurnSignals {
  return { ...NO_SIGNALS, activeReasons: [] };
}

/** Parses one Claude Code 2.x frame; `label` names the parser in the evidence. */
export function parseClaudeCodeV2(screen: Screen, label: string): ProfileResult {
  const detector = `claude_code@${label}`;
  const s: ClaudeScreen = splitScreen(screen.text);
  const nonBlank = s.lines.filter((l) => l.trim() !== '');
  const result = (
    surface: Omit<ProfileResult['surface'], 'projectionText'> & { projectionText?: string },
    signals: Partial<TurnSignals>,
    rule: string,
  ): ProfileResult => ({
    surface: { projectionText: '', ...surface },
    signals: { ...baseSignals(), ...signals },
    evidence: { detector, rule },
  });

  if (nonBlank.length === 0) {
    return result(
      {
        availability: 'unknown',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: 'blank',
      },
      {},
      'blank',
    );
  }

  const last = nonBlank[nonBlank.length - 1]!;
  const exited =
    isPaneDeadLine(last) ||
    (s.box === null && (isShellPromptLine(last) || nonBlank.some((l) => EXIT_NOTE.test(l))));
  if (exited) {
    return result(
      {
        availability: 'disconnected',
        businessState: 'unknown',
        inputMode: 'closed',
        uiContext: 'exited',
      },
      {},
      'exited',
    );
  }

  if (s.box === null) {
    const tail = nonBlank.slice(-25);
    const permission = tail.findIndex((l) => PERMISSION.test(l));
    if (permission >= 0 && tail.slice(permission).some((l) => DIALOG_OPTION.test(l))) {
      // The dialog opens with a full-width rule under the transcript; above it is the projection.
      let top = s.lines.lastIndexOf(tail[permission]!);
      while (top > 0 && !RULE.test(s.lines[top]!)) top--;
      const above = s.lines.slice(0, top);
      return result(
        {
          availability: 'supported',
          businessState: 'awaiting_operator',
          inputMode: 'modal',
          uiContext: 'permission_prompt',
          projectionText: projection(above),
        },
        {
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          blockedPrompt: 'tool_permission',
          chatContext: 'current',
        },
        'permission_prompt',
      );
    }
    if (tail.some((l) => AUTO_MODE_DIALOG.test(l)) && tail.some((l) => SELECTED_OPTION.test(l))) {
      return result(
        {
          availability: 'supported',
          businessState: 'awaiting_operator',
          inputMode: 'modal',
          uiContext: 'auto_mode_prompt',
        },
        {
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          blockedPrompt: 'onboarding',
          chatContext: 'current',
        },
        'auto_mode_prompt',
      );
    }
    if (tail.some((l) => TRUST.test(l)) && tail.some((l) => SELECTED_OPTION.test(l))) {
      return result(
        {
          availability: 'supported',
          businessState: 'awaiting_operator',
          inputMode: 'modal',
          uiContext: 'trust_prompt',
        },
        {
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          blockedPrompt: 'trust_folder',
          chatContext: 'current',
        },
        'trust_prompt',
      );
    }
    const known = nonBlank.some((l) => LOGO_HEADER.test(l) || INTERRUPT_HINT.test(l));
    return result(
      {
        availability: known ? 'supported' : 'unknown',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: known ? 'unrecognised' : 'unknown',
      },
      { ambiguous: known },
      known ? 'no_prompt_box' : 'unrecognised',
    );
  }

  const footer = s.footer.join('\n');
  const status = liveStatus(s.above);
  const activeReasons: string[] = [];
  if (INTERRUPT_HINT.test(footer)) activeReasons.push('esc_to_interrupt');
  if (status !== null && STATUS_LINE.test(status)) activeReasons.push('spinner');
  if (status !== null && RETRY_LINE.test(status)) activeReasons.push('retrying');

  const draftText = s.box.draft.join('\n').trim();
  const placeholder = PLACEHOLDERS.some((p) => p.test(draftText));
  const editing = draftText !== '' && !placeholder;
  const slashMenu =
    editing && draftText.startsWith('/') && s.above.slice(-12).some((l) => SLASH_MENU_ITEM.test(l));
  const projectionAbove = slashMenu ? s.above.filter((l) => !SLASH_MENU_ITEM.test(l)) : s.above;
  const projectionText = projection(projectionAbove);

  const latest = latestTurn(s.above);
  const turn = latest.lines;
  const working = activeReasons.length > 0;
  const interrupted = !working && INTERRUPTED.test(lastTurnLine(turn));
  const failure = working || interrupted ? null : knownFailure(turn);
  // Scrolled, the reply's first "● " line may be gone too; the turn's done summary remains.
  const replied =
    turn.some((l) => l.startsWith('● ') && !API_ERROR.test(l)) ||
    (latest.scrolled && turn.some((l) => DONE_LINE.test(l)));
  const hasUserTurn = latest.echoVisible || latest.scrolled;
  const successCandidate = !working && !interrupted && failure === null && hasUserTurn && replied;

  const signals: Partial<TurnSignals> = {
    acceptingInput: 'yes',
    editingInput: editing ? 'yes' : 'no',
    readyPosture: working || slashMenu ? 'no' : 'yes',
    activeReasons,
    interrupted,
    knownFailure: failure,
    successCandidate,
    chatContext: 'current',
  };
  if (working) {
    return result(
      {
        availability: 'supported',
        businessState: 'working',
        inputMode: 'freeform',
        uiContext: 'normal_prompt',
        projectionText,
      },
      signals,
      activeReasons.includes('retrying') ? 'retrying' : 'working',
    );
  }
  if (slashMenu) {
    return result(
      {
        availability: 'supported',
        businessState: 'idle',
        inputMode: 'modal',
        uiContext: 'slash_command',
        projectionText,
      },
      signals,
      'slash_command',
    );
  }
  const rule = interrupted
    ? 'interrupted'
    : failure
      ? 'known_failure'
      : successCandidate
        ? 'finished'
        : IDLE_HINT.test(footer) || !editing
          ? 'idle_prompt'
          : 'draft';
  return result(
    {
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: failure ? 'error' : 'normal_prompt',
      projectionText,
    },
    signals,
    rule,
  );
}
