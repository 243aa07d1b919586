import { filter, firstValueFrom, from, timeout as rxTimeout, type SchedulerLike } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { ExitStep } from '../profiles/launch-recipe.js';
import type { ToolProfile } from '../profiles/types.js';
import type { AnsweredBy } from '../schemas/record.js';
import type { ReadQuestion } from '../schemas/signals.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { gate, type Operation, type TerminalFacts } from './operations.js';
import type { TerminalPipeline } from './pipeline.js';
import type { PaneTyping } from './typing.js';
import { commandError, pressInterrupt, sleep, typingError } from './typing.js';
import type { HookTurnEvent } from '../hooks/events.js';
import type { ObserverEnding } from './witness.js';

/** The pause after each step of an exit command: a CLI's menu settles before the next key. */
const EXIT_STEP_PAUSE_MS = 400;

/** The pause between the keys of an answer typed one at a time (arrows, then Enter). */
const ANSWER_KEY_GAP_MS = 200;

/** At most this many presses of a profile's clear keys for a draft the CLI put back. */
const MAX_DRAFT_LINES_CLEARED = 8;

/** What every acting command carries: `force` overrides a refusal the gate allows to be forced. */
export interface CommandOptions extends TerminalFacts {
  force?: boolean;
}

/** A prompt to type and submit. */
export interface SubmitCommand extends CommandOptions {
  text: string;
}

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

/** The pane's latest capture and its observation time. */
export type PaneScreen = { text: string; t: number } | null;

/**
 * The commands a running terminal answers, each a typed call: prompts, the interrupt keys,
 * resume, and the screen. Commands that act are serialised: one at a time, and each one's check
 * against the gate and its typing are one step, so two prompts sent at the same moment to a
 * ready terminal give one turn and one refusal. The terminal's runtime makes one per run.
 */
export class TerminalCommands {
  /** The tail of the queue of acting commands. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Per submitted turn, the pane as drawn after the paste, before the submit keys. */
  private pasted: Map<string, string | null> | null = null;

  constructor(
    private readonly pipeline: TerminalPipeline,
    private readonly profile: ToolProfile,
    private readonly typing: PaneTyping,
    private readonly scheduler: SchedulerLike,
    private readonly now: () => number,
  ) {}

  /** Ends every tmux command still running (the runtime stops). */
  abort(): void {
    this.typing.abort();
  }

  /**
   * A turn event a hook of the CLI told (docs/hooks.md): a witness, never a key pressed, so it
   * does not wait behind a prompt being typed. False when the terminal takes no witness.
   */
  hookEvent(event: HookTurnEvent): boolean {
    return this.pipeline.hookEvent(this.now(), event);
  }

  /**
   * An ending a completion observer told (docs/witness.md): a witness, never a key pressed.
   * Null when taken, else why not.
   */
  observerEnding(event: ObserverEnding): 'surface' | 'not_current_turn' | 'already_ended' | null {
    return this.pipeline.observerEnding(this.now(), event);
  }

  /** Reading the screen acts on nothing: it never waits behind a prompt being typed. */
  screen(): PaneScreen {
    return this.pipeline.screen;
  }

  /**
   * Types a prompt and submits it, once the gate lets it through; resolves to the new turn's id
   * once the CLI has taken the prompt.
   */
  async submit(command: SubmitCommand): Promise<string> {
    const turnId = await this.enqueue(() => {
      this.check('sendInput', command);
      return this.type(command.text);
    });
    try {
      await this.confirmSubmitted(turnId);
    } finally {
      this.pasted?.delete(turnId);
    }
    return turnId;
  }

  /** Presses the profile's interrupt keys, once the gate lets it through. */
  interrupt(options: CommandOptions = {}): Promise<void> {
    return this.enqueue(async () => {
      this.check('interrupt', options);
      const current = this.pipeline.state.turn.current;
      await pressInterrupt(this.profile, (keys) => this.typing.keys(keys));
      if (current?.source === 'explicit_input') await this.clearPutBackDraft(current.id);
    });
  }

  /**
   * A CLI that puts an interrupted prompt back into its box (Qwen Code 0.24) would join it to
   * the next prompt paneward types. The prompt was paneward's own (an explicit turn), so once
   * the turn reads ended and the box holds a draft, the profile's keys clear it, a line at a
   * time, each press checked on a fresh frame. Runs in the queue: no prompt is typed between.
   */
  private async clearPutBackDraft(turnId: string): Promise<void> {
    const keys = this.profile.clearPutBackDraftKeys;
    if (keys === undefined) return;
    const cfg = this.pipeline.kernel.config;
    const frameMs = Math.max(250, cfg.pollIntervalSeconds * 1000);
    const drafted = (s: TerminalState) =>
      s.turn.current?.id !== turnId && s.surface.editingInput === 'yes';
    const waitFor = (ms: number, test: (s: TerminalState) => boolean) =>
      firstValueFrom(
        this.pipeline.state$.pipe(
          filter(test),
          rxTimeout({ first: ms, scheduler: this.scheduler, with: () => from([null]) }),
        ),
        { defaultValue: null },
      );
    if ((await waitFor(Math.max(3000, 6 * frameMs), drafted)) === null) return;
    for (let press = 0; press < MAX_DRAFT_LINES_CLEARED; press++) {
      if (this.pipeline.state.surface.editingInput !== 'yes') return;
      await this.typing.keys(keys);
      const pressedAt = this.now();
      await waitFor(4 * frameMs, (s) => s.t > pressedAt && s.surface.editingInput !== 'yes');
    }
  }

  /**
   * Types the CLI's own exit command (text typed literally, keys pressed, a pause after each),
   * once the gate lets it through as it would a prompt.
   */
  exit(steps: readonly ExitStep[], options: CommandOptions = {}): Promise<void> {
    return this.enqueue(async () => {
      this.check('sendInput', options);
      for (const step of steps) {
        if ('text' in step) {
          await this.typing.literal(step.text);
          await this.typing.untilDrawn(step.text);
        } else {
          await this.typing.keys(step.keys);
        }
        await sleep(EXIT_STEP_PAUSE_MS);
      }
    });
  }

  /**
   * Answers the question on screen with one of its choices, by the profile's keys for it. Typed
   * only while that very dialog is drawn: the pane is captured again right before the keys and
   * read by the profile, and a dialog with another id (or none) refuses. Afterwards the dialog
   * must be gone on a fresh frame, else `answer_failed`; the keys are never pressed again.
   */
  answer(command: AnswerCommand): Promise<AnswerResult> {
    return this.enqueue(async () => {
      const state = this.pipeline.state;
      const refuse = (reason: string, details: Record<string, unknown> = {}) =>
        new PanewardError('refused', `terminal ${state.terminalId} refuses answer: ${reason}`, {
          details: { operation: 'answer', reason, readiness: state.readiness.status, ...details },
        });
      this.check('answer', command);
      // The gate let it through: the state shows a question, and this is the one it read.
      const asked = this.pipeline.question;
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
      const settle = this.profile.answerSettleMs ?? 0;
      if (settle > 0) await sleep(settle);
      // The dialog as drawn right now, not as last polled: it may have changed in between. A
      // dialog whose highlight is drawn by colour alone is captured with its escapes, and the
      // profile reads the keys from where the highlight stands now.
      const screen =
        asked.highlight === undefined
          ? { text: await this.typing.capture() }
          : await this.typing.captureWithEscapes();
      const now = this.profile.parse(screen).question ?? null;
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
      const record = (outcome: 'closed' | 'still_open' | 'typing_failed' | 'unconfirmed') =>
        this.pipeline.recordAnswer({
          questionId: asked.id,
          questionKind: asked.kind,
          choice: chosen.id,
          by: command.by,
          outcome,
        });
      const typeKeys = async (question: ReadQuestion, keys: readonly string[]) => {
        try {
          if (question.highlight === undefined || keys.length === 1) await this.typing.keys(keys);
          else {
            // Arrows from a colour-only highlight: a CLI that reads a whole chunk as one key
            // (grok-cli, on Ink) drops arrows and Enter sent together, so each is its own send.
            for (const [i, key] of keys.entries()) {
              if (i > 0) await sleep(ANSWER_KEY_GAP_MS);
              await this.typing.keys([key]);
            }
          }
        } catch (error) {
          await record('typing_failed');
          throw commandError(error);
        }
        return this.now();
      };
      const cfg = this.pipeline.kernel.config;
      const frameMs = Math.max(250, cfg.pollIntervalSeconds * 1000);
      /** The first fresh state after `typedAt` that `done` accepts, or null within the wait. */
      const seen = (
        typedAt: number,
        done: (s: TerminalState) => boolean,
        ms = Math.max(5000, 10 * frameMs),
      ) =>
        firstValueFrom(
          this.pipeline.state$.pipe(
            filter((s) => s.t > typedAt && done(s)),
            rxTimeout({ first: ms, scheduler: this.scheduler, with: () => from([null]) }),
          ),
          { defaultValue: null },
        );
      const failed = (dialog: ReadQuestion, what: string) =>
        new PanewardError(
          'answer_failed',
          `terminal ${state.terminalId}: the dialog ${dialog.id} ${what} after "${chosen.id}" was typed; nothing more was typed, look at the pane`,
          { details: { questionId: asked.id, choice: chosen.id } },
        );
      const notClosed = (dialog: ReadQuestion) =>
        sameDialog(this.pipeline.state.surface.question, dialog)
          ? 'was still drawn'
          : 'was not seen to close (the screen read as neither it nor a prompt)';

      let typedAt = await typeKeys(now, keys);
      // The last dialog typed into: the question itself, or the confirmation it opened.
      let last: ReadQuestion = asked;
      if (chosen.confirmation === true) {
        // These keys only opened the CLI's confirmation of the choice: it must be seen, as the
        // very question that confirms this choice, before its confirming keys are typed.
        const opened: { question: ReadQuestion | null } = { question: null };
        await seen(typedAt, (s) => {
          const q = this.pipeline.question;
          if (q !== null && q.confirms === chosen.id) opened.question = q;
          return opened.question !== null || dialogGone(s, asked);
        });
        const confirmation = opened.question;
        if (confirmation === null) {
          await record(
            sameDialog(this.pipeline.state.surface.question, asked) ? 'still_open' : 'unconfirmed',
          );
          throw failed(asked, 'did not open its confirmation');
        }
        if (settle > 0) await sleep(settle);
        const drawn = this.profile.parse(
          confirmation.highlight === undefined
            ? { text: await this.typing.capture() }
            : await this.typing.captureWithEscapes(),
        ).question;
        const confirmKeys =
          drawn?.id === confirmation.id
            ? (drawn.choices.find((c) => c.id === chosen.id)?.keys ?? [])
            : [];
        if (confirmKeys.length === 0) {
          await record('unconfirmed');
          const why =
            drawn?.id !== confirmation.id
              ? 'changed before it was confirmed'
              : `could not be confirmed (${drawn.highlight?.problem ?? 'no keys'})`;
          throw failed(confirmation, why);
        }
        typedAt = await typeKeys(drawn!, confirmKeys);
        last = confirmation;
      }
      const gone = (s: TerminalState) =>
        dialogGone(s, last) && !sameDialog(s.surface.question, asked);
      const closeMs = this.profile.answerCloseMs?.[last.kind] ?? 0;
      let closed = await seen(typedAt, gone, Math.max(5000, 10 * frameMs, closeMs));
      // A dialog no longer drawn, on a screen read as nothing yet, is a CLI that may be starting
      // again (Gemini CLI relaunches itself after a trust answer, and on a loaded machine that takes
      // seconds): it gets longer to show what replaced the dialog. Nothing more is typed meanwhile.
      const question = () => this.pipeline.state.surface.question;
      if (closed === null && !sameDialog(question(), last) && !sameDialog(question(), asked)) {
        closed = await seen(typedAt, gone, Math.max(15_000, 60 * frameMs));
      }
      if (closed === null) {
        await record(last === asked ? 'still_open' : 'unconfirmed');
        const back = last !== asked && sameDialog(this.pipeline.state.surface.question, asked);
        throw failed(last, back ? `gave way to the dialog ${asked.id} again` : notClosed(last));
      }
      await record('closed');
      return { questionId: asked.id, kind: asked.kind, choice: chosen.id, closed: true as const };
    });
  }

  /** A fresh watchdog window for a session it blocked, once the gate lets it through. */
  resume(options: CommandOptions = {}): Promise<void> {
    return this.enqueue(() => {
      this.check('resume', options);
      this.pipeline.resumeSession(this.now());
    });
  }

  /**
   * The watchdog's cancel: the interrupt keys, in the queue (never inside a prompt's paste). The
   * watchdog's own chart decided it (a budget the user set), so no verdict is asked.
   */
  cancelForWatchdog(): Promise<void> {
    return this.enqueue(() => pressInterrupt(this.profile, (keys) => this.typing.keys(keys)));
  }

  /** Runs `act` after every acting command before it; a failure does not stop the queue. */
  private enqueue<T>(act: () => T | Promise<T>): Promise<T> {
    const step = this.queue.then(act);
    this.queue = step.then(
      () => undefined,
      () => undefined,
    );
    return step;
  }

  /** Refuses the command unless the gate lets it through now. */
  private check(operation: Operation, options: CommandOptions): void {
    const state = this.pipeline.state;
    const refused = gate(state, operation, options);
    if (refused === null) return;
    const c = state.completion;
    const pending =
      c !== null && c.status !== 'completed' && c.status !== 'failed' ? c.turnId : null;
    const details = {
      operation,
      allowed: refused.allowed,
      reason: refused.reason,
      readiness: state.readiness.status,
      turnPhase: state.turn.phase,
      ...(pending ? { pendingTurnId: pending } : {}),
      ...(state.session.stopReasonCode ? { stopReasonCode: state.session.stopReasonCode } : {}),
    };
    if (operation === 'sendInput') {
      throw new PanewardError(
        'not_ready',
        `terminal ${state.terminalId} is not ready (${refused.reason})`,
        { details },
      );
    }
    throw new PanewardError(
      'refused',
      `terminal ${state.terminalId} refuses ${operation}: ${refused.reason}`,
      { details },
    );
  }

  /**
   * Types `text` as one bracketed paste and submits it; returns the new turn's id.
   *
   * tmux cannot take back a command it was sent: a call that timed out may still run when tmux
   * answers again. So the turn is recorded before the paste, and a paste or submit that timed
   * out is reported as one that may have been typed, naming that turn (its completion reads
   * the pane as for any turn); one that failed at once typed nothing.
   */
  private async type(text: string): Promise<string> {
    // What is recorded so far (the last turn's end above all) is durable before anything is
    // typed: after a crash, a prompt left in the box never sits on a turn the journal still
    // shows open.
    await this.pipeline.journal.flush();
    // Loading a buffer types nothing: if it times out, nothing reaches the pane.
    const buffer = await this.typing.load(text);
    const turnId = this.pipeline.submit(this.now(), text);
    // The turn's start is durable before it is typed: after a crash the journal proves it.
    await this.pipeline.journal.flush();
    try {
      await this.typing.paste(buffer);
      // An Enter that arrives while the CLI still takes in the paste is dropped by some
      // (grok-cli): submit once the pasted text is drawn, after the profile's pause.
      const drawn = await this.typing.untilDrawn(text);
      (this.pasted ??= new Map()).set(turnId, drawn);
      const pause = this.profile.submitDelayMs ?? 0;
      if (pause > 0) await sleep(pause);
      await this.typing.keys(this.profile.submitKeys);
    } catch (error) {
      this.pasted?.delete(turnId);
      this.typing.discard(buffer);
      throw typingError(error, turnId);
    }
    return turnId;
  }

  /**
   * Some CLIs draw their input box before they accept input and drop an Enter sent then. If
   * the turn shows no sign of starting and the prompt still sits in the box as a draft, press
   * submit once more.
   */
  private async confirmSubmitted(turnId: string): Promise<void> {
    const cfg = this.pipeline.kernel.config;
    // A screen the profile cannot place (`unknown`) is no sign the turn started.
    const started = (s: TerminalState) =>
      s.completion?.turnId !== turnId ||
      (s.completion.status !== 'waiting' && s.completion.status !== 'unknown') ||
      s.completion.sawWorking ||
      s.completion.sawProjectionChange;
    const waitMs = Math.max(1500, 3 * cfg.pollIntervalSeconds * 1000);
    const seen = await firstValueFrom(
      this.pipeline.state$.pipe(
        filter(started),
        rxTimeout({ first: waitMs, scheduler: this.scheduler, with: () => from([null]) }),
      ),
      { defaultValue: null },
    );
    if (seen !== null) return;
    // In the queue, as every key: never between another command's check and its typing.
    await this.enqueue(async () => {
      if (!this.stillDraft(turnId)) return;
      // The profile may not place a box holding a draft (grok-cli reads it `unplaced`): the
      // pane unchanged since the paste, our text still in it, says the Enter was lost.
      if (this.pipeline.state.surface.editingInput !== 'yes') {
        const drawn = this.pasted?.get(turnId);
        if (drawn == null || (await this.typing.capture()) !== drawn) return;
        if (!this.stillDraft(turnId)) return;
      }
      await this.typing.keys(this.profile.submitKeys);
    });
  }

  /**
   * True while the turn shows nothing at all: still waiting (or on a screen the profile cannot
   * place), no activity, no failure the tool reported (after which nothing is typed), no dialog.
   */
  private stillDraft(turnId: string): boolean {
    const s = this.pipeline.state;
    const c = s.completion;
    return (
      c !== null &&
      c.turnId === turnId &&
      (c.status === 'waiting' || c.status === 'unknown') &&
      !c.sawWorking &&
      !c.sawProjectionChange &&
      s.surface.activeReasons.length === 0 &&
      s.surface.blockedPrompt === null &&
      s.readiness.status !== 'failed' &&
      s.readiness.status !== 'blocked' &&
      !(s.lastTurn.turnId === turnId && s.lastTurn.result !== 'none')
    );
  }
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
