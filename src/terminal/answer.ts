import { filter, firstValueFrom, from, timeout as rxTimeout, type SchedulerLike } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { ToolProfile } from '../profiles/types.js';
import type { AnsweredBy } from '../schemas/record.js';
import type { ReadQuestion } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { TerminalFacts } from './operations.js';
import type { TerminalPipeline } from './pipeline.js';
import type { PaneTyping } from './typing.js';
import { commandError, sleep } from './typing.js';

/** The pause between the keys of an answer typed one at a time (arrows, then Enter). */
const ANSWER_KEY_GAP_MS = 200;

/** An answer to the question a dialog asks (docs/questions.md). */
export interface AnswerCommand extends TerminalFacts {
  /** The question's id as the state showed it: only that very dialog is answered. */
  questionId: string;
  /** The choice's id (`allow_once`, `deny`, `trust`, ...). */
  choice: string;
  by: AnsweredBy;
}

/** What an answer did: the question and the choice, and that the dialog closed. */
export interface AnswerResult {
  questionId: string;
  kind: ReadQuestion['kind'];
  choice: string;
  closed: true;
}

/** What answering needs of a running terminal. */
export interface AnswerContext {
  readonly pipeline: TerminalPipeline;
  readonly profile: ToolProfile;
  readonly typing: PaneTyping;
  readonly scheduler: SchedulerLike;
  readonly now: () => number;
}

/**
 * Answers the question on screen with one of its choices, by the profile's keys for it. Typed
 * only while that very dialog is drawn: the pane is captured again right before the keys and
 * read by the profile, and a dialog with another id (or none) refuses. Afterwards the dialog
 * must be gone on a fresh frame, else `answer_failed`; the keys are never pressed again.
 */
export async function answerQuestion(
  on: AnswerContext,
  command: AnswerCommand,
  /** The gate's check, run once the terminal's state is taken. */
  check: () => void,
): Promise<AnswerResult> {
  const state = on.pipeline.state;
  const refuse = (reason: string, details: Record<string, unknown> = {}) =>
    new PanewardError('refused', `terminal ${state.terminalId} refuses answer: ${reason}`, {
      details: { operation: 'answer', reason, readiness: state.readiness.status, ...details },
    });
  check();
  // The gate let it through: the state shows a question, and this is the one it read.
  const asked = on.pipeline.question;
  if (asked === null) throw refuse('no question waits for the operator', { questionId: null });
  if (asked.id !== command.questionId) {
    throw refuse(`the question on screen is ${asked.id}, not ${command.questionId}`, {
      questionId: asked.id,
    });
  }
  const chosen = asked.choices.find((c) => c.id === command.choice);
  if (chosen === undefined) {
    const valid = asked.choices.map((c) => c.id);
    throw new PanewardError(
      'invalid_input',
      valid.length === 0
        ? `choice: question ${asked.id} (${asked.kind}) offers no choice paneward can give; answer it in the pane`
        : `choice: "${command.choice}" is not one of ${valid.join(', ')}`,
      { details: { field: 'choice', valid, questionId: asked.id } },
    );
  }
  // A CLI that lets early keys only move a new dialog's cursor gets its dialog's time first.
  const settle = on.profile.answerSettleMs ?? 0;
  if (settle > 0) await sleep(settle);
  // The dialog as drawn right now, not as last polled: it may have changed in between. A
  // dialog whose highlight is drawn by colour alone is captured with its escapes, and the
  // profile reads the keys from where the highlight stands now.
  const screen =
    asked.highlight === undefined
      ? { text: await on.typing.capture() }
      : await on.typing.captureWithEscapes();
  const now = on.profile.parse(screen).question ?? null;
  if (now?.id !== asked.id) {
    throw refuse(
      now === null
        ? `the dialog ${asked.id} closed before the answer was typed`
        : `the dialog changed before the answer was typed (now ${now.id})`,
      { questionId: now?.id ?? null },
    );
  }
  const keys = now.choices.find((c) => c.id === chosen.id)?.keys ?? [];
  if (keys.length === 0) {
    // The highlighted option could not be read without a guess: nothing is typed.
    const why = now.highlight?.problem ?? `no keys for "${chosen.id}"`;
    throw refuse(`the highlighted option of ${asked.id} cannot be read: ${why}`, {
      questionId: asked.id,
      choice: chosen.id,
    });
  }
  const record = (outcome: 'closed' | 'still_open' | 'typing_failed') =>
    on.pipeline.recordAnswer({
      questionId: asked.id,
      questionKind: asked.kind,
      choice: chosen.id,
      by: command.by,
      outcome,
    });
  try {
    if (asked.highlight === undefined || keys.length === 1) await on.typing.keys(keys);
    else {
      // Arrows from a colour-only highlight: a CLI that reads a whole chunk as one key
      // (grok-cli, on Ink) drops arrows and Enter sent together, so each is its own send.
      for (const [i, key] of keys.entries()) {
        if (i > 0) await sleep(ANSWER_KEY_GAP_MS);
        await on.typing.keys([key]);
      }
    }
  } catch (error) {
    await record('typing_failed');
    throw commandError(error);
  }
  const typedAt = on.now();
  const cfg = on.pipeline.kernel.config;
  const frameMs = Math.max(250, cfg.pollIntervalSeconds * 1000);
  const closed = await firstValueFrom(
    on.pipeline.state$.pipe(
      filter((s) => s.t > typedAt && dialogGone(s, asked)),
      rxTimeout({
        first: Math.max(5000, 10 * frameMs),
        scheduler: on.scheduler,
        with: () => from([null]),
      }),
    ),
    { defaultValue: null },
  );
  if (closed === null) {
    await record('still_open');
    const drawn = sameDialog(on.pipeline.state.surface.question, asked);
    const what = drawn
      ? 'was still drawn'
      : 'was not seen to close (the screen read as neither it nor a prompt)';
    throw new PanewardError(
      'answer_failed',
      `terminal ${state.terminalId}: the dialog ${asked.id} ${what} after "${chosen.id}" was typed; nothing more was typed, look at the pane`,
      { details: { questionId: asked.id, choice: chosen.id } },
    );
  }
  await record('closed');
  return { questionId: asked.id, kind: asked.kind, choice: chosen.id, closed: true as const };
}

/**
 * True when a state shows positively that the asked dialog is gone: another dialog, a prompt, a
 * working screen, the CLI exited or the pane gone. A screen read as neither (a CLI redrawing, a
 * dialog whose cursor moved off the option the profile knows) is no evidence that it closed.
 */
function dialogGone(s: TerminalState, asked: ReadQuestion): boolean {
  if (sameDialog(s.surface.question, asked)) return false;
  const gone = s.diagnostics.availability;
  if (gone === 'tui_down' || gone === 'unavailable') return true;
  return s.surface.businessState !== 'unknown' || s.surface.uiContext === 'exited';
}

/**
 * The dialog `asked` is still drawn: the same question, or the same dialog with its cursor moved
 * (an arrow dialog's id holds the cursor's place, so arrows that moved it and an Enter that did
 * nothing give another id on a dialog that did not close).
 */
function sameDialog(now: TerminalState['surface']['question'], asked: ReadQuestion): boolean {
  if (now === null) return false;
  if (now.id === asked.id) return true;
  return (
    now.kind === asked.kind &&
    now.subject === asked.subject &&
    now.choices.length === asked.choices.length &&
    now.choices.every(
      (c, i) => c.id === asked.choices[i]!.id && c.label === asked.choices[i]!.label,
    )
  );
}
