import type {
  ProfileResult,
  TurnSignals,
  KnownFailure,
  BlockedPromptKind,
} from '../../schemas/signals.js';
import { NO_SIGNALS } from '../../schemas/signals.js';
import { isPaneDeadLine, isShellPromptLine } from '../internal/exit.js';
import { boundMessage } from '../internal/failure.js';
import { lastNonBlank } from '../internal/lines.js';
import { pickVersioned, type Versioned } from '../internal/version.js';
import type { ProfileFactory, Screen, ToolProfile } from '../types.js';
import { readScreen, type GeminiScreen } from './screen.js';

/**
 * Screen strings of Gemini CLI 0.61 that the parser keys on. Anchors are meant: the lines are
 * tested as drawn (right-trimmed only), so `^` is column 0 and an indented reply line quoting
 * one of these strings does not match.
 */
const V0_61 = {
  label: '0.61',
  /** Spinner line while a request or tool runs: ` ⠹ Thinking... (esc to cancel, 3s)`. */
  active: /^ [\u2800-\u28ff] \S.*\(esc to cancel, [^)]+\)/,
  /** A prompt sent while the CLI initialises or works waits above the status line, indented by 4. */
  queued: /^ {2}Queued \(press ↑ to edit\):$/,
  queuedPrompt: /^ {4}\S/,
  /** Printed when a prompt is sent during start-up; while it is the newest line, that prompt is on its way. */
  initializing: /^ℹ Initializing\.\.\. Prompts will be queued\.$/,
  interrupted: /^ℹ Request cancelled\./,
  apiError: /^✕ \[API Error: (.*)/,
  reply: /^✦ /,
  banner: /Gemini CLI v\d/,
  permission: /Allow execution of|Apply this change\?|Allow once/,
  quotaDialog: /Keep trying|We are currently experiencing high demand|Usage limit reached/,
  trust: /Do you trust (this|the files in this) folder/,
  /** Start-up auth dialogs: the method picker, then the API key box. */
  auth: /How would you like to authenticate|Enter Gemini API Key|Existing API key detected/,
  goodbye: /Agent powering down\. Goodbye!/,
  slashSuggestion: /^\s{1,2}\/?[a-z][\w-]*\s{2,}\S/,
  /** The idle hint, kept out of the projection (as is the spinner line). */
  idleHint: /^\s*\? for shortcuts$/,
} as const;

type Strings = typeof V0_61;

function failureOf(line: string): KnownFailure {
  const code = /"code":\s*(\d+)/.exec(line)?.[1];
  const status = /"status":\s*"([A-Z_]+)"/.exec(line)?.[1];
  let kind = code ? `api_error_${code}` : 'api_error';
  // 429/503 surface as the bare API message (`Resource has been exhausted …`, `The model is overloaded …`).
  if (
    code === '429' ||
    status === 'RESOURCE_EXHAUSTED' ||
    /Resource has been exhausted|quota|rate limit/i.test(line)
  )
    kind = 'rate_limited';
  else if (code === '503' || status === 'UNAVAILABLE' || /overloaded/i.test(line))
    kind = 'overloaded';
  return { kind, message: boundMessage(line) };
}

function projection(s: GeminiScreen, strings: Strings): string {
  return s.lines
    .slice(0, s.transcriptEnd)
    .filter((l) => !strings.active.test(l) && !strings.idleHint.test(l))
    .join('\n')
    .trim();
}

/**
 * The queue notice as the CLI draws it: the notice, the queued prompt's lines indented by four,
 * and nothing else down to the status area. Text between it and the status area is a reply.
 */
function hasQueuedPrompt(s: GeminiScreen, strings: Strings): boolean {
  const transcript = s.lines.slice(0, s.transcriptEnd);
  const at = transcript.findLastIndex((l) => strings.queued.test(l));
  if (at < 0) return false;
  const rest = transcript.slice(at + 1).filter((l) => l.trim() !== '');
  return rest.length > 0 && rest.every((l) => strings.queuedPrompt.test(l));
}

function parseWith(strings: Strings, screen: Screen): ProfileResult {
  const detector = `gemini_cli@${strings.label}`;
  const s = readScreen(screen.text);
  const nonBlank = s.lines.filter((l) => l.trim() !== '');
  const hasInput = s.inputTop >= 0;
  // As drawn: `^` in the outcome patterns means column 0.
  const latest = s.lines.slice(s.latestTurnStart, s.transcriptEnd);
  // The last drawn lines (trailing blank rows are dropped): operator prompts draw over the box.
  const bottom = s.lines.slice(-25);

  const base: TurnSignals = { ...NO_SIGNALS, activeReasons: [], chatContext: 'current' };
  const result = (
    surface: ProfileResult['surface'],
    signals: Partial<TurnSignals>,
    rule: string,
  ): ProfileResult => ({ surface, signals: { ...base, ...signals }, evidence: { detector, rule } });

  if (nonBlank.length === 0) {
    return result(
      {
        availability: 'unknown',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: 'blank',
        projectionText: '',
      },
      { chatContext: 'unknown' },
      'blank',
    );
  }

  // The CLI has exited: tmux's dead-pane note under its last screen, its goodbye box, or a
  // shell prompt below the last CLI screen.
  const tail = lastNonBlank(s.lines);
  if (
    isPaneDeadLine(tail) ||
    (!hasInput && (s.lines.some((l) => strings.goodbye.test(l)) || isShellPromptLine(tail)))
  ) {
    return result(
      {
        availability: 'disconnected',
        businessState: 'unknown',
        inputMode: 'closed',
        uiContext: 'exited',
        projectionText: '',
      },
      { acceptingInput: 'no', editingInput: 'no', readyPosture: 'no', chatContext: 'unknown' },
      'exited',
    );
  }

  const projectionText = projection(s, strings);
  const spinning = s.liveEdge.some((l) => strings.active.test(l));
  const queued = hasInput && hasQueuedPrompt(s, strings);
  // Between leaving the queue and its echo, the queued prompt shows nothing but this line.
  const lastTranscriptLine = s.lines
    .slice(0, s.transcriptEnd)
    .filter((l) => l.trim() !== '')
    .at(-1);
  const dispatching = hasInput && strings.initializing.test(lastTranscriptLine ?? '');
  const active = spinning || queued || dispatching;
  const activeReasons = [
    ...(spinning ? ['spinner_esc_to_cancel'] : []),
    ...(queued ? ['queued_prompt'] : []),
    ...(dispatching ? ['queued_prompt_dispatching'] : []),
  ];

  // Operator prompts draw over the prompt box, so they live in the bottom rows.
  let blocked: BlockedPromptKind | null = null;
  let uiContext = 'normal_prompt';
  if (!hasInput) {
    if (bottom.some((l) => strings.permission.test(l))) {
      blocked = 'tool_permission';
      uiContext = 'permission_prompt';
    } else if (bottom.some((l) => strings.trust.test(l))) {
      blocked = 'trust_folder';
      uiContext = 'trust_prompt';
    } else if (bottom.some((l) => strings.auth.test(l))) {
      blocked = 'login';
      uiContext = 'auth_dialog';
    } else if (bottom.some((l) => strings.quotaDialog.test(l))) {
      blocked = 'other';
      uiContext = 'error_retry_dialog';
    }
  }
  if (blocked) {
    return result(
      {
        availability: 'supported',
        businessState: 'awaiting_operator',
        inputMode: 'modal',
        uiContext,
        projectionText,
      },
      {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        activeReasons,
        blockedPrompt: blocked,
      },
      uiContext,
    );
  }

  const recognised = hasInput || s.hasFooter || s.lines.some((l) => strings.banner.test(l));
  if (!recognised) {
    return result(
      {
        availability: 'unknown',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: 'unrecognised',
        projectionText,
      },
      { chatContext: 'unknown' },
      'unrecognised',
    );
  }
  if (!hasInput) {
    // Recognisably the CLI, but no prompt box and no known dialog (a menu or picker has focus).
    return result(
      {
        availability: 'supported',
        businessState: active ? 'working' : 'unknown',
        inputMode: 'modal',
        uiContext: 'dialog',
        projectionText,
      },
      {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        activeReasons,
        ambiguous: !active,
      },
      active ? 'working_modal' : 'unknown_dialog',
    );
  }

  const editing = s.draft !== '';
  const interruptedLine = latest.find((l) => strings.interrupted.test(l));
  const errorLine = latest.find((l) => strings.apiError.test(l));
  const knownFailure = errorLine ? failureOf(errorLine.trim()) : null;
  const bannerVisible = s.lines.some((l) => strings.banner.test(l));
  // No prompt echo and no banner: a long reply has pushed its own start off the screen, so
  // the whole visible transcript belongs to the latest turn.
  const scrolledIntoTurn =
    s.latestTurnStart === 0 && !bannerVisible && latest.some((l) => l.trim() !== '');
  const hasReply = latest.some((l) => strings.reply.test(l)) || scrolledIntoTurn;
  const slash =
    editing &&
    s.draft.startsWith('/') &&
    s.lines.slice(s.inputTop).some((l) => strings.slashSuggestion.test(l));
  const startup = s.latestTurnStart === 0 && !hasReply && bannerVisible;
  if (slash) uiContext = 'slash_command';
  else if (knownFailure && !active) uiContext = 'error';
  else if (startup && !active) uiContext = 'startup';

  const signals: Partial<TurnSignals> = {
    acceptingInput: 'yes',
    editingInput: editing ? 'yes' : 'no',
    readyPosture: active ? 'no' : 'yes',
    activeReasons,
    interrupted: !active && interruptedLine !== undefined,
    knownFailure: active ? null : knownFailure,
    successCandidate: !active && hasReply && !interruptedLine && !knownFailure,
  };
  const rule = active
    ? 'working'
    : signals.interrupted
      ? 'interrupted'
      : knownFailure
        ? `failure:${knownFailure.kind}`
        : signals.successCandidate
          ? 'reply_idle'
          : 'idle';
  return result(
    {
      availability: 'supported',
      businessState: active ? 'working' : 'idle',
      inputMode: 'freeform',
      uiContext,
      projectionText,
    },
    signals,
    rule,
  );
}

function makeProfile(strings: Strings, verified: string): ToolProfile {
  return {
    id: 'gemini_cli',
    verifiedVersions: verified,
    processNames: ['gemini'],
    interruptKeys: ['Escape'],
    submitKeys: ['Enter'],
    parse: (screen) => parseWith(strings, screen),
  };
}

interface GeminiParser extends Versioned {
  strings: Strings;
  verified: string;
}

/** Newest first; the first parser that covers the version wins, the newest when unknown. */
const PARSERS: readonly GeminiParser[] = [
  { covers: (major, minor) => major > 0 || minor >= 61, strings: V0_61, verified: '0.61.x' },
];

/** Gemini CLI's profile; `toolVersion` picks the parser (0.61 screens by default). */
export const createGeminiCliProfile: ProfileFactory = (toolVersion) => {
  const parser = pickVersioned(PARSERS, toolVersion);
  return makeProfile(parser.strings, parser.verified);
};
