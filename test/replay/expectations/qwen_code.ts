import type { ScenarioExpectation, ToolExpectations } from '../expectations.js';
import { DOWN, READY } from './common.js';

/**
 * The profile knows the working line only with a braille glyph: the dots spinner reads as the
 * idle prompt. The slow turn is never seen from the screen alone; the turn that then asks for
 * permission is reported a success when the tool call is drawn, 12 s before its true end.
 */
const scenarios: Record<string, ScenarioExpectation> = {
  startup: { turns: [], final: READY },
  // The folder is not trusted yet: "Do you trust this folder?" before the prompt.
  'startup-dialogs': { turns: [], final: READY, dialog: 'Do you trust this folder?' },
  'normal-turn': { turns: ['success'], final: READY },
  'long-turn-pause': { turns: ['success'], final: READY },
  'two-turns': { turns: ['success', 'success'], final: READY },
  // `● Request cancelled.`
  interrupted: { turns: ['interrupted'], final: READY },
  // Seven attempts with backoff (about 80 s; the client's own retries set to none), then
  // `✕ [API Error: 500 …] (Press Ctrl+Y to retry)`.
  'error-500': { turns: ['known_failure'], final: READY },
  'error-429-rate-limit': { turns: ['known_failure'], final: READY },
  // The default: the client retries each of the seven attempts too (about 105 s).
  'error-500-default-retries': { turns: ['known_failure'], final: READY },
  'error-400': { turns: ['known_failure'], final: READY },
  // With the session record (docs/witness.md). Its record never marks an interrupt, so that
  // one is the screen's alone.
  'record-normal-turn': { turns: ['success'], final: READY, witnesses: ['both'] },
  'record-interrupted': { turns: ['interrupted'], final: READY, witnesses: ['surface'] },
  'record-error-400-slow': { turns: ['known_failure'], final: READY, witnesses: ['both'] },
  'retry-interrupted': { turns: ['interrupted'], final: READY, endedByKey: true },
  'permission-approved': { turns: ['success'], final: READY, dialog: 'Allow execution of' },
  // Denied (Escape), the tool is drawn cancelled (`-  Shell …`) and the turn ends without a
  // reply or a note: no outcome.
  'permission-denied': { turns: ['unknown'], final: READY, dialog: 'Allow execution of' },
  'quoted-chrome': { turns: ['success'], final: READY },
  hang: { turns: ['interrupted'], final: READY, hang: true },
  'size-80x24-normal-turn': { turns: ['success'], final: READY },
  'size-250x60-normal-turn': { turns: ['success'], final: READY },
  'size-80x24-interrupted': { turns: ['interrupted'], final: READY },
  'size-250x60-interrupted': { turns: ['interrupted'], final: READY },
  'size-80x24-permission-approved': {
    turns: ['success'],
    final: READY,
    dialog: 'Allow execution of',
  },
  'size-250x60-permission-approved': {
    turns: ['success'],
    final: READY,
    dialog: 'Allow execution of',
  },
  // Run with TMUX set, as in a pane a user opens in tmux: the working line's glyph is then
  // `.  `, `.. `, `...` (docs/spinners.md). Streamed at 0.6 s a chunk.
  'tmux-env-slow-turn': {
    turns: ['success'],
    final: READY,
  },
  // Screen-reader mode (`--screen-reader`): `responding` where the glyph stands, no borders,
  // `User:` / `Model:` for the echo and the reply, one rule over the prompt line.
  'screen-reader-slow-turn-then-permission': {
    turns: ['success'],
    final: READY,
    dialog: 'Allow execution of',
  },
  'screen-reader-two-turns': { turns: ['success', 'success'], final: READY },
  // The same at 80x24: reply lines wrap to column 0.
  'size-80x24-screen-reader-two-turns': { turns: ['success', 'success'], final: READY },
  'screen-reader-interrupted': { turns: ['interrupted'], final: READY },
  // Retried for about 85 s under `responding`, then `✕ [API Error: 500 …` over the rule.
  'screen-reader-error-500': { turns: ['known_failure'], final: READY },
  // A hung stream under `responding` until it is interrupted; one frame is half drawn.
  'screen-reader-hang': { turns: ['interrupted'], final: READY, hang: true },
  // The same turns as above, with TMUX set.
  'tmux-env-long-turn-pause': { turns: ['success'], final: READY },
  // The requests fail and are retried for about 65 s before the error shows; the dots
  // spinner's line keeps the turn working all that time.
  'tmux-env-error-500': {
    turns: ['known_failure'],
    final: READY,
  },
  // A hung stream: the dots spinner keeps the turn working until it is interrupted.
  'tmux-env-hang': {
    turns: ['interrupted'],
    final: READY,
    hang: true,
  },
  'tmux-env-interrupted': {
    turns: ['interrupted'],
    final: READY,
  },
  'size-80x24-tmux-env-slow-turn': { turns: ['success'], final: READY },
  // Text streamed slowly, then a shell call that asks for permission, approved after 6 s.
  'tmux-env-slow-turn-then-permission': {
    turns: ['success'],
    final: READY,
    dialog: 'Allow execution of',
  },
  'cli-exit': { turns: ['success'], final: DOWN },
  'cli-killed': { turns: ['success'], final: DOWN },
};

/**
 * Versions recorded after 0.15.10, each in `test/fixtures/qwen_code/<version>/`: the scenarios,
 * each with what sets it apart from 0.15.10's expectation (nothing, mostly).
 */
const NEWER_VERSIONS: Record<string, Record<string, Partial<ScenarioExpectation>>> = {
  // Every scenario recorded on 0.24.4.
  '0.24.4': {
    startup: {},
    'startup-dialogs': {},
    'normal-turn': {},
    'long-turn-pause': {},
    'two-turns': {},
    interrupted: {},
    'error-500': {},
    'error-429-rate-limit': {},
    'error-500-default-retries': {},
    'error-400': {},
    'record-normal-turn': {},
    'record-interrupted': {},
    'record-error-400-slow': {},
    'permission-approved': {},
    'permission-denied': {},
    'quoted-chrome': {},
    'size-80x24-normal-turn': {},
    'size-250x60-normal-turn': {},
    'size-80x24-interrupted': {},
    'size-250x60-interrupted': {},
    'size-80x24-permission-approved': {},
    'size-250x60-permission-approved': {},
    'tmux-env-slow-turn': {},
    'screen-reader-slow-turn-then-permission': {},
    'screen-reader-two-turns': {},
    'size-80x24-screen-reader-two-turns': {},
    'screen-reader-interrupted': {},
    'screen-reader-error-500': {},
    'tmux-env-long-turn-pause': {},
    'tmux-env-error-500': {},
    'tmux-env-interrupted': {},
    'size-80x24-tmux-env-slow-turn': {},
    'tmux-env-slow-turn-then-permission': {},
    'cli-exit': {},
    'cli-killed': {},
    // Escape while a retry waits, or before any text streamed: 0.24 takes the prompt's echo off
    // the screen and puts the prompt back into the box, with no `Request cancelled.` note, so
    // no frame tells the interrupt.
    'retry-interrupted': {
      knownProfileWeakness: {
        reason: '0.24 leaves no mark of a turn interrupted before its reply began',
        failing: ['submitted', 'screen_alone'],
      },
    },
    hang: {
      knownProfileWeakness: {
        reason: '0.24 leaves no mark of a turn interrupted before its reply began',
        failing: ['submitted', 'screen_alone'],
      },
    },
    'screen-reader-hang': {
      knownProfileWeakness: {
        reason: '0.24 leaves no mark of a turn interrupted before its reply began',
        failing: ['submitted', 'screen_alone'],
      },
    },
    'tmux-env-hang': {
      knownProfileWeakness: {
        reason: '0.24 leaves no mark of a turn interrupted before its reply began',
        failing: ['submitted', 'screen_alone'],
      },
    },
  },
};

/** A newer version's recordings must end as the same scenario of 0.15.10 did. */
/** Scenarios recorded only on a newer version, with their whole expectation. */
const ONLY_NEWER: Record<string, ScenarioExpectation> = {
  // The 400 comes after 1.5 s: the turn shows working before the error.
  '0.24.4/error-400-slow': { turns: ['known_failure'], final: READY },
  // Long conversations (docs/profiles.md, "The chat context"); Qwen Code takes 200,000 tokens as
  // the window of a model it does not know. At 170,000 reported it says `★ Context is getting
  // full. …` after the turn and compacts before the next prompt (`IMPORTANT: This conversation
  // approached the input token limit for fake-model. A compressed context will be sent …`),
  // then answers it: the context stays current.
  '0.24.4/context-near-full': { turns: ['success', 'success'], final: READY },
  // At 180,000, over its hard limit, it compacts and still counts the prompt over that limit:
  // the prompt is not sent, the turn ends in `✕ [API Error: Context is too large to send safely
  // after automatic compression. …]` (the turn's error, with no turn request to check it
  // against) and the context reads degraded.
  '0.24.4/context-hard-limit': {
    turns: ['success', 'known_failure'],
    unsent: [2],
    final: READY,
    chatContext: {
      degradedErrorType: 'qwen_context_too_large_after_compression',
      shownBy: /^ {2}✕ \[API Error: Context is too large to send safely/m,
    },
  },
  // The provider refuses the first prompt as over the window (nothing to compact yet).
  '0.24.4/context-length-exceeded': {
    turns: ['known_failure'],
    final: READY,
    chatContext: {
      degradedErrorType: 'qwen_context_length_exceeded',
      shownBy: /^ {2}✕ \[API Error: 400 This model's maximum context length/m,
    },
  },
  // The same, then the next prompt is answered: the error is history.
  '0.24.4/context-length-exceeded-then-success': {
    turns: ['known_failure', 'success'],
    final: READY,
    chatContext: {
      degradedErrorType: 'qwen_context_length_exceeded',
      shownBy: /^ {2}✕ \[API Error: 400 This model's maximum context length/m,
      cleared: true,
    },
  },
  // A refusal after a first turn: the CLI compacts the history and sends the prompt again,
  // answered; the context stays current.
  '0.24.4/context-length-recovered': { turns: ['success', 'success'], final: READY },
};

function sameAsBase(): Record<string, ScenarioExpectation> {
  const out: Record<string, ScenarioExpectation> = { ...ONLY_NEWER };
  for (const [version, named] of Object.entries(NEWER_VERSIONS)) {
    for (const [name, apart] of Object.entries(named)) {
      const base = scenarios[name];
      if (!base) throw new Error(`qwen_code ${version}/${name}: no scenario ${name} to follow`);
      out[`${version}/${name}`] = { ...base, ...apart };
    }
  }
  return out;
}

export const qwenCode: ToolExpectations = {
  inputBox: /^> +Type your message or @path\/to\/file/m,
  // Qwen Code 0.15.10 and 0.24.4 stream the reply and drop the spinner line within a poll or two.
  renderAllowanceSeconds: 0.5,
  scenarios: { ...scenarios, ...sameAsBase() },
};
