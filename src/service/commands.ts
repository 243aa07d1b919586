import { isPanewardError, PanewardError } from '../errors.js';
import type {
  CommandHandlers,
  CommandInput,
  CommandName,
  TurnPayload,
  TurnResponse,
} from '../schemas/operations/index.js';
import type { SupervisorPort } from './port.js';

/**
 * Waits for a turn to end. A wait that runs out answers `timeout` with what is known then (the
 * completion, if it is this turn's, and the last turn), never an error: the one place this is
 * decided, for the HTTP routes and a fleet edge alike.
 */
export async function waitOutcome(
  port: SupervisorPort,
  id: string,
  turnId: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TurnResponse> {
  try {
    return await port.waitForTurn(id, turnId, { timeoutMs, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (!isPanewardError(error) || error.code !== 'timeout') throw error;
    const s = port.get(id);
    return {
      turnId,
      result: 'timeout',
      completion: s.completion?.turnId === turnId ? s.completion : null,
      lastTurn: s.lastTurn,
      payload: await payloadOf(port, id, turnId),
    };
  }
}

/** A turn's payload where the port keeps one, else null (never an error). */
export async function payloadOf(
  port: SupervisorPort,
  id: string,
  turnId: string,
): Promise<TurnPayload | null> {
  if (!port.turnPayload) return null;
  try {
    return await port.turnPayload(id, turnId);
  } catch {
    return null;
  }
}

/** A turn's payload, or `unknown_turn` where the port keeps none. */
export async function turnPayload(
  port: SupervisorPort,
  id: string,
  turnId: string,
): Promise<TurnPayload> {
  port.get(id);
  if (!port.turnPayload) {
    throw new PanewardError('unknown_turn', `this server keeps no turn payloads (turn ${turnId})`);
  }
  return port.turnPayload(id, turnId);
}

/**
 * A turn that is over already and whose completion has since cleared: its own outcome is the
 * answer (a client that printed the turn id asks after it ended). Null while it may still end.
 */
export async function endedEarlier(
  port: SupervisorPort,
  id: string,
  turnId: string,
): Promise<TurnResponse | null> {
  const now = port.get(id);
  if (
    now.lastTurn.turnId === turnId &&
    now.turn.current?.id !== turnId &&
    now.completion?.turnId !== turnId
  ) {
    const payload = await payloadOf(port, id, turnId);
    return { turnId, result: 'completed', completion: null, lastTurn: now.lastTurn, payload };
  }
  return null;
}

/**
 * Every command, run on what the service serves (a local supervisor, or a fleet view that
 * forwards each call to the host that owns the terminal). `from: 'fleet'`: the commands came
 * from a fleet server (a host's edge runs them), and an answer is journaled as the fleet's, with
 * the client the fleet server was asked by.
 */
export function portCommands(
  port: SupervisorPort,
  options: { from?: 'fleet' } = {},
): CommandHandlers {
  return {
    attach: async ({ body }) => {
      const terminalId = await port.attach(body);
      return { terminalId, state: port.get(terminalId) };
    },
    input: async ({ id, body }) => ({
      turnId: await port.submit(id, body.text, { force: body.force ?? false }),
    }),
    turns: async ({ id, body }, signal) => {
      const turnId = await port.submit(id, body.prompt, { force: body.force ?? false });
      return waitOutcome(port, id, turnId, Math.round(body.timeoutSeconds * 1000), signal);
    },
    wait: ({ id, turnId, timeoutMs }, signal) =>
      port.waitForTurn(id, turnId, { timeoutMs, ...(signal ? { signal } : {}) }),
    turn: ({ id, turnId }) => turnPayload(port, id, turnId),
    interrupt: async ({ id }) => {
      await port.interrupt(id);
      return { ok: true };
    },
    resume: async ({ id }) => {
      await port.resume(id);
      return { ok: true };
    },
    detach: async ({ id }) => {
      await port.detach(id);
      return { ok: true };
    },
    screen: ({ id }) => port.screen(id),
    observe: ({ id, body }) => {
      if (!port.observerEnding) {
        throw new PanewardError('refused', 'this server takes no completion observers');
      }
      return port.observerEnding(id, body);
    },
    answer: async ({ id, body, tokenId }) => {
      if (!port.answer) throw new PanewardError('refused', 'this server does not answer questions');
      const client = body.via ?? 'http';
      return port.answer(id, {
        questionId: body.questionId,
        choice: body.choice,
        by:
          options.from === 'fleet'
            ? { via: 'fleet', tokenId: tokenId ?? null, client }
            : { via: client, tokenId: tokenId ?? null },
      });
    },
  };
}

/** A command as it travels: its name beside its input. */
export type CommandCall = { [K in CommandName]: { op: K } & CommandInput<K> }[CommandName];

/** Runs one command by name (the fleet edge's dispatcher): the handler its contract names. */
export function runCommand(
  handlers: CommandHandlers,
  call: CommandCall,
  signal?: AbortSignal,
): Promise<unknown> {
  // `call` is one command's input beside its name: the handler of that name takes it.
  const handler = handlers[call.op] as (
    input: CommandCall,
    signal?: AbortSignal,
  ) => Promise<unknown>;
  return handler(call, signal);
}
