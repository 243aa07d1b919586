import type { AnsweredBy } from '../schemas/record.js';
import type { AnswerResult } from '../terminal/commands.js';
import { PanewardError } from '../errors.js';
import { operationsFor, type Operations, type TerminalFacts } from '../terminal/operations.js';
import { DEFAULT_WITNESS_WINDOW_SECONDS } from '../terminal/witness.js';
import {
  checkSubmit,
  invalid,
  WaitOptions,
  type SupervisorOptionsInput,
  type TurnResult,
} from './options.js';
import { SupervisorSystem } from './system.js';
import { answered, waitForTurn } from './turns.js';
import { MAX_TURN_PAYLOADS, type TurnPayload } from '../schemas/turn-payload.js';
import { takeHookEvent } from '../hooks/intake.js';
import type { HookAnswer, HookEventBody } from '../schemas/hook.js';
import { ObservationBody, type ObservationAnswer } from '../schemas/observer-ending.js';
import type { RecordedEnding } from '../profiles/session-record.js';

export {
  AttachRequest,
  SupervisorOptions,
  type RestartRecord,
  type SupervisorOptionsInput,
  type Telemetry,
  type TurnResult,
} from './options.js';

/**
 * The supervisor: an XState actor system whose root (the supervisor actor) spawns one terminal
 * actor per attached pane, each owning its statechart actors. Attach and detach at run time,
 * read and subscribe to each terminal's public state, submit prompts and wait for those turns.
 * Everything that happens is a record in one durable stream (the journal); a supervisor
 * started on the same data directory re-attaches what was attached and continues from it.
 */
export class Supervisor extends SupervisorSystem {
  /**
   * Types a prompt literally and submits it; refused (`not_ready`) unless readiness is `ready`,
   * no turn submitted through paneward is still running, and the watchdog has not blocked the
   * session (`force: true` overrides). Every input is checked before anything is typed.
   */
  async submit(
    id: string,
    text: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<string> {
    const o = checkSubmit(text, opts);
    this.terminals.get(id);
    if (o.signal?.aborted) throw new PanewardError('aborted', 'aborted');
    const commands = this.commandsOf(id);
    return answered(commands.submit({ text, force: o.force ?? false, ...this.factsOf(id) }));
  }

  /** Waits for that turn's completion actor to end, then for the turn's own outcome. */
  async waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const o = WaitOptions.safeParse(opts);
    if (!o.success) throw invalid('waitForTurn', o.error);
    if (!this.knowsTurn(id, turnId)) {
      throw new PanewardError(
        'unknown_turn',
        `waitForTurn: field \`turnId\`: terminal ${id} has no turn ${turnId} (not its current, last or a recent one)`,
        { details: { terminalId: id, turnId } },
      );
    }
    const ended = await waitForTurn(this.state$(id), id, turnId, o.data, {
      scheduler: this.scheduler,
      // The turn's own outcome settles at most one settle window (plus two polls) after
      // completion, or a witness window when the session record decides what the screen cannot
      // tell (Cline draws an interrupted reply like a finished one).
      graceMs:
        (this.config.settleSeconds +
          DEFAULT_WITNESS_WINDOW_SECONDS +
          2 * this.config.pollIntervalSeconds) *
        1000,
      current: () => this.get(id),
    });
    return { ...ended, payload: this.payloads.get(id, turnId) ?? null };
  }

  /**
   * What a turn answered (docs/contracts.md §6): its reply text (from the session record where
   * the CLI writes one, else the screen), outcome, evidence and timing; `ended: false` while it
   * runs. Kept in memory for the terminal's latest 20 turns: an older turn, one from before a
   * restart, or one the terminal never had is `unknown_turn`, the message saying which.
   */
  turnPayload(id: string, turnId: string): TurnPayload {
    this.terminals.get(id);
    const kept = this.payloads.get(id, turnId);
    if (kept) return kept;
    const known = this.knowsTurn(id, turnId);
    throw new PanewardError(
      'unknown_turn',
      known
        ? `terminal ${id}'s turn ${turnId} is no longer kept: payloads are kept in memory for the latest ${MAX_TURN_PAYLOADS} turns since the supervisor started`
        : `field \`turnId\`: terminal ${id} has no turn ${turnId}`,
      { details: { terminalId: id, turnId, kept: this.payloads.turnIds(id) } },
    );
  }

  /**
   * Whether `turnId` is a turn of this terminal: its current one, the one its completion is
   * about, its last one, or one its recent records name. Waiting on any other could only time out.
   */
  private knowsTurn(id: string, turnId: string): boolean {
    const s = this.get(id);
    if (
      s.turn.current?.id === turnId ||
      s.completion?.turnId === turnId ||
      s.lastTurn.turnId === turnId
    ) {
      return true;
    }
    return this.journal
      .recent(id)
      .some(
        (r) =>
          (r.kind === 'turn.started' || r.kind === 'turn.ended' || r.kind === 'turn.reopened') &&
          r.turnId === turnId,
      );
  }

  /** Submits `prompt` and waits for that turn to finish. */
  async runTurn(
    id: string,
    prompt: string,
    opts: { timeoutMs?: number; signal?: AbortSignal; force?: boolean } = {},
  ): Promise<TurnResult> {
    const { force, ...wait } = opts;
    const w = WaitOptions.safeParse(wait);
    if (!w.success) throw invalid('runTurn', w.error);
    const turnId = await this.submit(id, prompt, { force, signal: opts.signal });
    return this.waitForTurn(id, turnId, wait);
  }

  /**
   * Sends the profile's interrupt keys; refused (`refused`) unless a turn is running (the
   * `interrupt` verdict), or `force: true`.
   */
  async interrupt(id: string, opts: { force?: boolean } = {}): Promise<void> {
    const commands = this.commandsOf(id);
    await answered(commands.interrupt({ force: opts.force === true }));
  }

  /**
   * Answers the question a dialog on the terminal's screen asks, with one of its choices
   * (docs/questions.md): typed only while that very dialog is drawn, by the profile's keys;
   * refused (`refused`) otherwise, `invalid_input` naming `choice` for a choice it does not
   * offer, `answer_failed` when the dialog did not close.
   */
  async answer(
    id: string,
    request: { questionId: string; choice: string; by?: AnsweredBy },
  ): Promise<AnswerResult> {
    const commands = this.commandsOf(id);
    return answered(
      commands.answer({
        questionId: request.questionId,
        choice: request.choice,
        by: request.by ?? { via: 'library', tokenId: null },
        ...this.factsOf(id),
      }),
    );
  }

  /**
   * The operations the terminal accepts now, as the gate decides them for its actions (the
   * public state's verdicts and what the supervisor was told of the pane).
   */
  operations(id: string): Operations {
    return operationsFor(this.get(id), this.factsOf(id));
  }

  /**
   * Marks a pane as one that reads no input (a recording plays in it, say): every prompt to it
   * is refused with `reason`, forced or not, and its `sendInput` verdict says so.
   */
  refuseInput(id: string, reason: string): void {
    this.terminals.get(id);
    this.readsNoInput.set(id, reason);
  }

  private factsOf(id: string): TerminalFacts {
    const why = this.readsNoInput.get(id);
    return why === undefined ? {} : { readsNoInput: why };
  }

  /**
   * The pane's latest capture (plain text, as `capture-pane -p` prints it) and its observation
   * time; null before the first. Screens can hold secrets: they are never journaled.
   */
  async screen(id: string): Promise<{ text: string; t: number } | null> {
    return this.commandsOf(id).screen();
  }

  /**
   * Resumes a session the watchdog blocked: a fresh wall-clock window. Refused (`refused`)
   * when the session is not blocked.
   */
  async resume(id: string): Promise<void> {
    const commands = this.commandsOf(id);
    await answered(commands.resume());
  }

  /**
   * Takes an event a CLI's hook posted (docs/hooks.md): the terminal supervising the pane it
   * ran in gets it as a witness of its turns. Nothing is typed. An unknown tool, another tmux
   * server or an unsupervised pane is refused (`invalid_input`, `unknown_terminal`).
   */
  hookEvent(tool: string, body: HookEventBody): Promise<HookAnswer> {
    this.assertRunning();
    return takeHookEvent(
      {
        serverOf: async (pane) => {
          const out = await this.transport
            .run(['display-message', '-p', '-t', pane, '#{pid}\t#{socket_path}'])
            .catch(() => null);
          const [pid, socketPath] = (out ?? '').trim().split('\t');
          return pid && socketPath ? { pid: Number(pid), socketPath } : null;
        },
        terminals: () =>
          this.ids().map((id) => ({
            id,
            pane: this.terminals.paneOf(id),
            tool: this.get(id).tool,
          })),
        deliver: (id, event) => this.running.get(id)?.hookEvent(event) ?? false,
      },
      tool,
      body,
    );
  }

  /**
   * Takes an ending a completion observer outside the process tells (docs/witness.md;
   * `POST /v1/terminals/{id}/observations`): a witness of the terminal's open turn under its
   * completion authority, as a library observer's ending is. Nothing is typed. Refused
   * (`refused`) for a turn that is not the open one; `ignored` under `surface`, or when an
   * observer already ended the turn.
   */
  async observerEnding(id: string, body: ObservationBody): Promise<ObservationAnswer> {
    this.assertRunning();
    const parsed = ObservationBody.safeParse(body);
    if (!parsed.success) throw invalid('observerEnding', parsed.error);
    const b = parsed.data;
    const commands = this.commandsOf(id);
    const ending: RecordedEnding =
      b.reason === 'known_failure' ? { reason: b.reason, kind: b.kind! } : { reason: b.reason };
    const why = commands.observerEnding({ turnId: b.turnId, observer: b.observer, ending });
    if (why === 'not_current_turn') {
      const current = this.get(id).turn.current?.id ?? null;
      throw new PanewardError(
        'refused',
        current === null
          ? `field \`turnId\`: terminal ${id} has no open turn (${b.turnId} is not running): nothing was taken`
          : `field \`turnId\`: ${b.turnId} is not the open turn of terminal ${id} (${current} is): nothing was taken`,
        {
          details: {
            field: 'turnId',
            reason: 'not_current_turn',
            turnId: b.turnId,
            currentTurnId: current,
          },
        },
      );
    }
    return {
      terminalId: id,
      turnId: b.turnId,
      ...(why === null ? { taken: 'turn_ended' as const } : { taken: 'ignored' as const, why }),
    };
  }
}

/** Creates a supervisor (see {@link SupervisorOptions}). */
export function createSupervisor(options: SupervisorOptionsInput = {}): Supervisor {
  return new Supervisor(options);
}
