import {
  BLOCKED_BY_DIALOG,
  NO_SIGNALS,
  type DialogContext,
  type KnownFailure,
  type ParsedSurface,
  type ProfileResult,
  type TriState,
  type TurnSignals,
} from '../../schemas/signals.js';
import { readLiveRegion, type LiveActivity } from './activity.js';

/** How the latest turn on screen ended, as its last outcome marker says (one at most). */
export type TurnOutcome =
  { kind: 'failed'; failure: KnownFailure } | { kind: 'interrupted' } | { kind: 'finished' };

/** The prompt box as a profile read it. */
export interface PromptReading {
  /**
   * Where typed keys go: `freeform` into the prompt; `modal` to a menu drawn over it (slash
   * commands); `closed` nowhere yet (the CLI still starts and queues what is typed);
   * `unknown` when the box is drawn but the CLI may not take input yet.
   */
  mode: 'freeform' | 'modal' | 'closed' | 'unknown';
  /** The box holds text the user typed (not a placeholder). */
  editing: boolean;
  /** The context a non-freeform box is in (`startup`, `slash_command`). */
  context?: 'startup' | 'slash_command';
}

/**
 * What a profile reads from one frame, before any decision: the shape of the screen, then the
 * latest turn. Each CLI fills this in from its own vocabulary; {@link decide} turns it into a
 * surface and turn signals the same way for every CLI.
 */
export type ScreenReading =
  | { shape: 'blank' }
  /** The CLI is gone: tmux's dead-pane note, its goodbye text, a shell prompt. */
  | { shape: 'exited'; why: string }
  /** Nothing the profile knows: a new release's screen, another program. */
  | { shape: 'unrecognised' }
  | {
      shape: 'cli';
      /** A question that holds the agent, when one is drawn. */
      dialog: DialogContext | null;
      /**
       * The prompt box; null when none is drawn. Without a box and without a dialog the screen
       * is a panel: `overlay` when the profile knows it asks nothing (help, warnings), else
       * unplaced (ambiguous).
       */
      prompt: PromptReading | null;
      panel?: 'overlay';
      /** Why the agent is working right now (spinner, interrupt hint, retry notice); empty: it is not. */
      active: string[];
      /** The latest turn's outcome marker, if it shows one. */
      outcome: TurnOutcome | null;
      /** Transcript text without the live edge and chrome: stable while nothing happens. */
      projection: string;
      /**
       * The live region: the rows where the CLI draws its status (between the transcript and the
       * prompt box, and under the box). Searched for activity hints by {@link readLiveRegion}.
       */
      live: readonly string[];
      /** The rows where the CLI's spinner stands, when the profile knows them. */
      spinnerPlace?: readonly string[];
      /**
       * Text in a place the profile knows (the spinner's, the status row's) that it cannot
       * explain: with no activity seen, the frame reads unknown, never idle.
       */
      unexplained?: string;
      /**
       * The CLI says, in the latest turn next to its prompt, that the chat's context is in
       * trouble (a failed compaction, an overflowing window): why, in the tool's own terms.
       * Only the context's health: it never makes an outcome.
       */
      degraded?: string;
    };

/** The live region, when the profile's own reasons already say the agent works. */
const NOTHING_SEEN: LiveActivity = { active: [], unexplained: null };

const frameSurface = (
  availability: ParsedSurface['availability'],
  businessState: ParsedSurface['businessState'],
  inputMode: ParsedSurface['inputMode'],
  uiContext: ParsedSurface['uiContext'],
  projectionText: string,
): ParsedSurface => ({ availability, businessState, inputMode, uiContext, projectionText });

/**
 * The decision every profile shares, in this order: the frame's shape (blank, exited,
 * unrecognised), then a dialog, then the latest turn's error, its interruption, the agent
 * working, the turn finished, and last the idle prompt. An outcome marker counts only while
 * nothing runs: a CLI that retries after showing an error is working again.
 */
export function decide(reading: ScreenReading, detector: string): ProfileResult {
  // The context's health: read on a supported surface only, and only from what the profile
  // found next to the prompt.
  const degraded = reading.shape === 'cli' ? reading.degraded : undefined;
  const contextOf = (surface: ParsedSurface): Partial<TurnSignals> =>
    surface.availability !== 'supported'
      ? { chatContext: 'unknown' }
      : degraded === undefined
        ? { chatContext: 'current' }
        : { chatContext: 'degraded', degradedErrorType: degraded };
  const result = (
    surface: ParsedSurface,
    signals: Partial<TurnSignals>,
    rule: string,
    recognised = true,
  ): ProfileResult => ({
    surface,
    signals: {
      ...NO_SIGNALS,
      ...contextOf(surface),
      ...signals,
      // Never the shared NO_SIGNALS array: a caller may keep or extend what it gets.
      activeReasons: [...(signals.activeReasons ?? [])],
    },
    evidence: { detector, rule },
    recognised,
  });

  switch (reading.shape) {
    case 'blank':
      return result(frameSurface('unknown', 'unknown', 'unknown', 'blank', ''), {}, 'blank');
    case 'exited':
      return result(
        frameSurface('disconnected', 'unknown', 'closed', 'exited', ''),
        { acceptingInput: 'no', editingInput: 'no', readyPosture: 'no' },
        `exited:${reading.why}`,
      );
    case 'unrecognised':
      return result(
        frameSurface('unknown', 'unknown', 'unknown', 'unrecognised', ''),
        {},
        'unrecognised',
        false,
      );
  }

  const { dialog, prompt, outcome, projection } = reading;
  // The shared fail-safe rule: any activity hint in the live region means working. The
  // profile's own reasons come first; the shared hints count where it found none (and with
  // reasons of its own the frame is working: nothing the hints say is read then).
  const seen =
    reading.active.length > 0 ? NOTHING_SEEN : readLiveRegion(reading.live, reading.spinnerPlace);
  const active = reading.active.length > 0 ? reading.active : seen.active;
  const working = active.length > 0;

  // 1. A dialog: the agent waits for the operator.
  if (dialog) {
    return result(
      frameSurface('supported', 'awaiting_operator', 'modal', dialog, projection),
      {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        activeReasons: active,
        blockedPrompt: BLOCKED_BY_DIALOG[dialog],
      },
      `dialog:${dialog}`,
    );
  }

  // No prompt box and no dialog: a panel over the prompt (known) or a screen not placed.
  if (prompt === null) {
    const overlay = reading.panel === 'overlay';
    const businessState = working ? 'working' : overlay ? 'idle' : 'unknown';
    return result(
      frameSurface(
        'supported',
        businessState,
        overlay || working ? 'modal' : 'unknown',
        overlay ? 'overlay' : 'unplaced',
        projection,
      ),
      {
        acceptingInput: 'no',
        editingInput: 'no',
        readyPosture: 'no',
        activeReasons: active,
        ambiguous: !overlay && !working,
      },
      working ? `working:${active[0]!}` : overlay ? 'overlay' : 'unplaced',
    );
  }

  // A spinner-shaped line no hint explains: neither working nor idle can be claimed.
  if (!working && (seen.unexplained !== null || reading.unexplained !== undefined)) {
    return result(
      frameSurface('supported', 'unknown', 'unknown', 'unplaced', projection),
      {
        acceptingInput: 'unknown',
        editingInput: 'unknown',
        readyPosture: 'unknown',
        ambiguous: true,
      },
      'unknown:live_line',
    );
  }

  const failure = !working && outcome?.kind === 'failed' ? outcome.failure : null;
  const interrupted = !working && outcome?.kind === 'interrupted';
  const finished = !working && outcome?.kind === 'finished';
  const accepting: TriState =
    prompt.mode === 'freeform' || prompt.mode === 'modal'
      ? 'yes'
      : prompt.mode === 'closed'
        ? 'no'
        : 'unknown';
  const signals: Partial<TurnSignals> = {
    acceptingInput: accepting,
    editingInput: prompt.editing ? 'yes' : 'no',
    readyPosture: !working && prompt.mode === 'freeform' ? 'yes' : 'no',
    activeReasons: active,
    interrupted,
    knownFailure: failure,
    successCandidate: finished,
  };
  const context = prompt.context ?? (failure ? 'error' : 'normal_prompt');
  const idle = frameSurface('supported', 'idle', prompt.mode, context, projection);

  // 2. The latest turn failed; 3. it was interrupted (only while nothing runs).
  if (failure) return result(idle, signals, `error:${failure.kind}`);
  if (interrupted) return result(idle, signals, 'interrupted');
  // 4. The agent works.
  if (working) {
    return result(
      frameSurface('supported', 'working', prompt.mode, context, projection),
      signals,
      `working:${active[0]!}`,
    );
  }
  // 5. The latest turn finished with a reply; 6. the idle prompt (or a draft in it).
  if (finished) return result(idle, signals, 'finished');
  if (prompt.context) return result(idle, signals, prompt.context);
  return result(idle, signals, prompt.editing ? 'draft' : 'ready');
}
