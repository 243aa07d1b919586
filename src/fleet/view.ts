import { PanewardError } from '../errors.js';
import { MAX_TIMER_DELAY_MS } from '../internal/long-timer.js';
import type { AnsweredBy, JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type {
  CommandInput,
  CommandName,
  CommandOutput,
  ObservationAnswer,
  ObservationBody,
} from '../schemas/operations/index.js';
import type { AttachCommand, SupervisorPort } from '../service/port.js';
import type { TurnResult } from '../supervisor/supervisor.js';
import type { TurnPayload } from '../schemas/turn-payload.js';
import { sendCommand } from './commands.js';
import { qualify } from './names.js';
import { FleetFollower, type HostView } from './follower.js';

/** How long a host may wait for an answered dialog to close, beside the command's own time. */
const ANSWER_CLOSE_MS = 6_000;

/**
 * Every host of a fleet as one supervisor: the latest state of each terminal from the state
 * bucket, the records of all hosts from the stream (SSE ids are stream sequences), and commands
 * routed to the host that owns the terminal over request/reply. Terminal ids are qualified by
 * host (`host/id`). A host whose heartbeat expired shows its terminals `unavailable` with the
 * reason `host_unreachable` until it is back. Serve it with `createHttpApp(view)`.
 */
export class FleetView extends FleetFollower implements SupervisorPort {
  // ---- reads ---------------------------------------------------------------------------------

  ids(): string[] {
    return [...this.terminals.keys()].sort();
  }

  get(id: string): TerminalState {
    const t = this.terminal(id);
    const host = this.hostView(t.host);
    if (host.reachable) return { ...t.state, terminalId: id };
    const why = this.unreachableWhy(t.host);
    return {
      ...t.state,
      terminalId: id,
      diagnostics: {
        ...t.state.diagnostics,
        availability: 'unavailable',
        error: { kind: 'host_unreachable', message: why },
      },
      readiness: { ...t.state.readiness, status: 'unknown' },
      turn: { ...t.state.turn, phase: 'unknown' },
    };
  }

  viewDetails(id: string): Record<string, unknown> {
    return { host: this.hostView(this.terminal(id).host) };
  }

  healthDetails(): Record<string, unknown> {
    return {
      fleet: {
        nats: { connected: this.conn.connected, refusal: this.conn.refusal },
        hosts: this.hostViews(),
      },
    };
  }

  /** Null once connected to NATS (or after `ms` with NATS down), else why NATS refused it. */
  firstAttempt(ms?: number): Promise<string | null> {
    return this.conn.firstAttempt(ms);
  }

  history(id: string, limit?: number): JournalRecord[] {
    this.terminal(id);
    return this.journal.history(id, limit);
  }

  /** Every host the view knows of, and whether it is reachable now. */
  hostViews(): HostView[] {
    const names = new Set([
      ...this.hosts.keys(),
      ...[...this.terminals.values()].map((t) => t.host),
    ]);
    return [...names].sort().map((h) => this.hostView(h));
  }

  // ---- commands ------------------------------------------------------------------------------

  async attach(request: AttachCommand): Promise<string> {
    const { host, ...body } = request;
    const known = [...this.hosts.keys()].sort();
    if (host === undefined) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`host\`: a fleet needs the host whose pane it is (known: ${known.join(', ') || 'none'})`,
      );
    }
    if (!this.hosts.has(host)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`host\`: no host ${host} in the fleet (known: ${known.join(', ') || 'none'})`,
      );
    }
    const value = await this.command(host, 'attach', { body }, this.commandMs * 2);
    const id = qualify(host, value.terminalId);
    // The state bucket will say the same shortly; the answer is not made to wait for it.
    if (!this.terminals.has(id)) {
      this.terminals.set(id, { host, terminalId: value.terminalId, state: value.state });
    }
    return id;
  }

  async submit(id: string, text: string, opts: { force?: boolean } = {}): Promise<string> {
    const t = this.terminal(id);
    const value = await this.command(t.host, 'input', {
      id: t.terminalId,
      body: { text, force: opts.force ?? false },
    });
    return value.turnId;
  }

  async waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const t = this.terminal(id);
    // The request waits this long plus the command's own time: kept within what a timer holds.
    const timeoutMs = Math.min(opts.timeoutMs ?? 600_000, MAX_TIMER_DELAY_MS - this.commandMs);
    const wait = this.command(
      t.host,
      'wait',
      { id: t.terminalId, turnId, timeoutMs },
      timeoutMs + this.commandMs,
    ).then((r): TurnResult => ({
      ...r,
      payload: r.payload ? { ...r.payload, terminalId: id } : null,
    }));
    if (!opts.signal) return wait;
    const signal = opts.signal;
    return new Promise<TurnResult>((resolve, reject) => {
      const onAbort = () => reject(new PanewardError('aborted', 'aborted'));
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      wait.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async interrupt(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'interrupt', { id: t.terminalId });
  }

  async resume(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'resume', { id: t.terminalId });
  }

  /** A turn's payload, asked of its host (replies are never stored in NATS). */
  async turnPayload(id: string, turnId: string): Promise<TurnPayload> {
    const t = this.terminal(id);
    const payload = await this.command(t.host, 'turn', { id: t.terminalId, turnId });
    return { ...payload, terminalId: id };
  }

  /** The pane's latest capture, asked of its host (screens are never stored in NATS). */
  async screen(id: string): Promise<{ text: string; t: number } | null> {
    const t = this.terminal(id);
    return this.command(t.host, 'screen', { id: t.terminalId });
  }

  /** An ending a completion observer tells (docs/witness.md), forwarded to the terminal's host. */
  async observerEnding(id: string, body: ObservationBody): Promise<ObservationAnswer> {
    const t = this.terminal(id);
    const answer = await this.command(t.host, 'observe', { id: t.terminalId, body });
    return { ...answer, terminalId: id };
  }

  /**
   * Answers the question on a terminal's screen through its host's edge, which runs it through
   * that host's supervisor (the same gate and checks) and journals it there as the fleet's
   * (`by.via: fleet`, with the client this server was asked by). Given a little longer than
   * other commands: the host waits up to 5 s for the dialog to close. Never sent twice: a
   * timeout says it may have been typed.
   */
  async answer(
    id: string,
    request: { questionId: string; choice: string; by: AnsweredBy },
  ): Promise<CommandOutput<'answer'>> {
    const t = this.terminal(id);
    const { via, tokenId } = request.by;
    const client = via === 'cli' || via === 'dashboard' ? via : 'http';
    return this.command(
      t.host,
      'answer',
      {
        id: t.terminalId,
        body: { questionId: request.questionId, choice: request.choice, via: client },
        tokenId,
      },
      this.commandMs + ANSWER_CLOSE_MS,
    );
  }

  async detach(id: string): Promise<void> {
    const t = this.terminal(id);
    await this.command(t.host, 'detach', { id: t.terminalId });
    this.terminals.delete(id);
    this.journal.forget(id);
  }

  /**
   * Sends one command to the host that owns the terminal and returns its answer, checked
   * against the command's contract. Never sent twice: see {@link sendCommand}.
   */
  private async command<K extends CommandName>(
    host: string,
    op: K,
    input: CommandInput<K>,
    timeoutMs = this.commandMs,
  ): Promise<CommandOutput<K>> {
    if (!this.conn.connected) {
      throw new PanewardError(
        'host_unreachable',
        `the fleet view has no connection to NATS: the ${op} command for host ${host} was not sent`,
      );
    }
    if (!this.hostView(host).reachable) {
      throw new PanewardError(
        'host_unreachable',
        `${this.unreachableWhy(host)}: the ${op} command was not sent`,
      );
    }
    const nc = await this.conn.connection();
    if (!nc) throw new PanewardError('stopped', 'the fleet view has been stopped');
    return sendCommand(nc, host, op, input, timeoutMs, this.token);
  }
}
