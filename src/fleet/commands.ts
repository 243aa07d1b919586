import { randomUUID } from 'node:crypto';
import {
  headers as natsHeaders,
  RequestError,
  TimeoutError,
  type NatsConnection,
} from '@nats-io/transport-node';
import { PanewardError, type PanewardErrorCode } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import {
  COMMANDS,
  type CommandInput,
  type CommandName,
  type CommandOutput,
} from '../schemas/operations/index.js';
import { SIGNATURE_HEADER, signCommand } from './auth.js';
import { commandSubject } from './names.js';
import { CommandReply } from './schemas.js';

/** What a command does, for the error of a host too old to know it. */
const WHAT: Partial<Record<CommandName, string>> = {
  answer: 'answer questions',
  observe: "take a completion observer's ending",
};

/**
 * Whether an edge's refusal says it does not know the command at all: an edge older than the
 * command answers any command it cannot parse with `invalid_input`, and one whose operation it
 * does not know with the issue on the field `op` (the discriminator of its commands).
 */
function unknownCommand(e: { code: string; message: string; details: unknown }): boolean {
  if (e.code !== 'invalid_input') return false;
  if (e.message.startsWith('command: field `op`:')) return true;
  return (
    Array.isArray(e.details) &&
    e.details.some(
      (i: unknown) =>
        typeof i === 'object' &&
        i !== null &&
        Array.isArray((i as { path?: unknown }).path) &&
        (i as { path: unknown[] }).path.length === 1 &&
        (i as { path: unknown[] }).path[0] === 'op',
    )
  );
}

/**
 * Sends one command to a host's edge over request/reply and returns its answer, checked against
 * the command's contract. Never sent twice: a command that cannot be delivered fails at once
 * (`host_unreachable`, 503); one that gets no answer in time fails with `host_timeout` (504),
 * saying it may have run. An error the edge answers is thrown as the same `PanewardError`, but
 * for its refusal of the signature (`unauthorized` there): that is `host_refused` here (502), as
 * the caller's own credentials were fine. With a fleet token the command is signed with it.
 */
export async function sendCommand<K extends CommandName>(
  nc: NatsConnection,
  host: string,
  op: K,
  input: CommandInput<K>,
  timeoutMs: number,
  token: string | null = null,
): Promise<CommandOutput<K>> {
  // The envelope of `CommandRequest`: the contract's input beside its name.
  const request = { ...input, op, requestId: randomUUID(), expiresAt: Date.now() + timeoutMs };
  const subject = commandSubject(host);
  const body = JSON.stringify(request);
  const hdrs = token === null ? undefined : natsHeaders();
  if (hdrs) hdrs.set(SIGNATURE_HEADER, signCommand(token!, subject, body));
  let raw: unknown;
  try {
    const msg = await nc.request(subject, body, {
      timeout: timeoutMs,
      ...(hdrs ? { headers: hdrs } : {}),
    });
    raw = msg.json();
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) {
      throw new PanewardError(
        'host_unreachable',
        `no edge answers for host ${host}: the ${op} command was not delivered`,
        { cause: error },
      );
    }
    if (error instanceof TimeoutError || (error as Error).name === 'TimeoutError') {
      throw new PanewardError(
        'host_timeout',
        `host ${host} did not answer the ${op} command within ${Math.round(timeoutMs / 1000)} s: it may have reached the host; the terminal's state and events show whether it ran (it is never sent twice)`,
        { cause: error },
      );
    }
    throw new PanewardError(
      'host_unreachable',
      `the ${op} command for host ${host} could not be sent: ${String(error)}`,
      { cause: error },
    );
  }
  const reply = CommandReply.safeParse(raw);
  if (!reply.success) {
    throw new PanewardError('internal', `host ${host} answered the ${op} command with no reply`);
  }
  if (!reply.data.ok) {
    const e = reply.data.error;
    if (unknownCommand(e)) {
      throw new PanewardError(
        'unsupported',
        `host ${host} runs a paneward that cannot ${WHAT[op] ?? `run the ${op} command`} (it does not know the ${op} command; nothing was run): upgrade paneward on that host`,
        { details: { op } },
      );
    }
    if (e.code === 'unauthorized') {
      throw new PanewardError(
        'host_refused',
        `host ${host} refused the ${op} command (nothing was run): ${e.message}${token === null ? '; this fleet server has no fleet token' : ''}`,
      );
    }
    throw new PanewardError(e.code as PanewardErrorCode, e.message, { details: e.details });
  }
  const value = COMMANDS[op].output.safeParse(reply.data.value);
  if (!value.success) {
    throw new PanewardError(
      'internal',
      `host ${host} answered the ${op} command with something else: ${describeZodError(value.error)}`,
    );
  }
  // `COMMANDS[op]` for a generic `op` is the union of every contract: its output is op's own.
  return value.data as CommandOutput<K>;
}
