import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { isPanewardError, PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { CommandHandlers } from '../schemas/operations/index.js';
import { runCommand } from '../service/commands.js';
import { checkSignature } from './auth.js';
import { commandSubject } from './names.js';
import { CommandRequest, type CommandReply } from './schemas.js';

/** A host's clock may run ahead of the sender's by this much before a command counts as late. */
const CLOCK_SKEW_MS = 2_000;
/** Answers remembered by request id (a repeated command gets the first answer). */
const REMEMBER_ANSWERS = 1_000;
/** A refused command is logged at most this often (ms); the others are counted. */
const REFUSAL_LOG_MS = 10_000;

/**
 * An edge's answers to commands over request/reply: each request is validated against its
 * operation's contract and run by the same handlers the HTTP API runs. A repeated request id
 * gets the first answer (never run twice); a request past its sender's deadline is dropped.
 * With a fleet token, a command not signed with it is refused (`unauthorized`) before anything
 * else is looked at: nothing is run, read or remembered for it.
 */
export class CommandResponder {
  /** Commands run (repeats not counted). */
  commands = 0;
  /** Commands refused for want of a valid signature. */
  refused = 0;
  private refusalsUnlogged = 0;
  private refusalLoggedAt = 0;
  private sub: Subscription | null = null;
  private readonly answers = new Map<string, Promise<CommandReply>>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly hostId: string,
    private readonly handlers: CommandHandlers,
    private readonly log: Logger | undefined,
    /** The fleet token commands must be signed with; null: unsigned commands are run. */
    private readonly token: string | null = null,
  ) {}

  get listening(): boolean {
    return this.sub !== null;
  }

  listen(nc: NatsConnection, stopped: () => boolean): void {
    this.sub = nc.subscribe(commandSubject(this.hostId), {
      callback: (err, msg) => {
        if (err || stopped()) return;
        const p = this.answer(msg);
        this.inFlight.add(p);
        void p.finally(() => this.inFlight.delete(p));
      },
    });
  }

  /** Lets the answers under way finish. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  close(): void {
    this.sub?.unsubscribe();
  }

  private async answer(msg: Msg): Promise<void> {
    let reply: CommandReply;
    if (this.token !== null) {
      const why = checkSignature(this.token, msg.subject, msg.string(), msg.headers);
      if (why !== null) {
        this.noteRefusal(why);
        this.respond(msg, fail(new PanewardError('unauthorized', why)));
        return;
      }
    }
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      raw = undefined;
    }
    const parsed = CommandRequest.safeParse(raw);
    this.log?.debug({ command: raw }, 'command received');
    if (!parsed.success) {
      reply = fail(
        new PanewardError('invalid_input', `command: ${describeZodError(parsed.error)}`, {
          details: parsed.error.issues,
        }),
      );
    } else if (Date.now() > parsed.data.expiresAt + CLOCK_SKEW_MS) {
      // Delivered late (it sat in a buffer through an outage): its sender gave up; not run.
      this.log?.warn(
        { op: parsed.data.op, requestId: parsed.data.requestId },
        'late command dropped',
      );
      return;
    } else {
      const { requestId, expiresAt: _expiresAt, ...call } = parsed.data as CommandRequest;
      let answer = this.answers.get(requestId);
      if (!answer) {
        this.commands += 1;
        answer = runCommand(this.handlers, call).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => fail(error),
        );
        this.answers.set(requestId, answer);
        if (this.answers.size > REMEMBER_ANSWERS) {
          this.answers.delete(this.answers.keys().next().value!);
        }
      }
      reply = await answer;
    }
    this.log?.debug(
      { ok: reply.ok, ...(reply.ok ? {} : { error: reply.error }) },
      'command answered',
    );
    this.respond(msg, reply);
  }

  private respond(msg: Msg, reply: CommandReply): void {
    try {
      msg.respond(JSON.stringify(reply));
    } catch (error) {
      this.log?.warn({ err: String(error) }, 'command answered into a closed connection');
    }
  }

  private noteRefusal(why: string): void {
    this.refused += 1;
    this.refusalsUnlogged += 1;
    const now = Date.now();
    if (now - this.refusalLoggedAt < REFUSAL_LOG_MS) return;
    this.log?.warn(
      { refused: this.refusalsUnlogged, reason: why },
      'command refused: not signed with the fleet token',
    );
    this.refusalsUnlogged = 0;
    this.refusalLoggedAt = now;
  }
}

function fail(error: unknown): CommandReply {
  const e = isPanewardError(error)
    ? error
    : new PanewardError('internal', error instanceof Error ? error.message : String(error));
  return { ok: false, error: e.toJSON() };
}
