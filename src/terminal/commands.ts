import { filter, firstValueFrom, from, timeout as rxTimeout, type SchedulerLike } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { ExitStep } from '../profiles/launch-recipe.js';
import type { ToolProfile } from '../profiles/types.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { gate, type Operation, type TerminalFacts } from './operations.js';
import { answerQuestion, type AnswerCommand, type AnswerResult } from './answer.js';
import type { TerminalPipeline } from './pipeline.js';
import type { PaneTyping } from './typing.js';
import { pressInterrupt, sleep, typingError } from './typing.js';
import type { HookTurnEvent } from '../hooks/events.js';

export type { AnswerCommand, AnswerResult } from './answer.js';
import type { ObserverEnding } from './witness.js';

/** The pause after each step of an exit command: a CLI's menu settles before the next key. */
const EXIT_STEP_PAUSE_MS = 400;

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
    return this.enqueue(() =>
      answerQuestion(
        {
          pipeline: this.pipeline,
          profile: this.profile,
          typing: this.typing,
          scheduler: this.scheduler,
          now: this.now,
          check: (operation, options) => this.check(operation, options),
        },
        command,
      ),
    );
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
      // The pane before the paste: while it stays so, the CLI has not read the paste yet.
      const before = await this.typing.capture().catch(() => undefined);
      await this.typing.paste(buffer);
      // An Enter read together with the paste is taken into the draft by some (grok-cli,
      // Gemini CLI, Cline): submit once the pasted text is drawn, after the profile's pause.
      const drawn = await this.typing.untilDrawn(text, before);
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
      // The profile may not place a box holding a draft (it reads `unplaced`): the
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
