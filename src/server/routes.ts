import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { PanewardError } from '../errors.js';
import { createHash } from 'node:crypto';
import {
  answer,
  AnswerBody,
  AnswerDone,
  AttachBody,
  COMMANDS,
  DeleteQuery,
  ErrorBody,
  events,
  History,
  history,
  InputAccepted,
  InputBody,
  list,
  Screen,
  SpawnBody,
  spawn,
  SpawnView,
  state,
  StopAnswer,
  stop,
  TerminalId,
  terminalEvents,
  TerminalList,
  TerminalView,
  TurnBody,
  TurnId,
  TurnPayload,
  TurnResponse,
  TurnWaitQuery,
  type CommandHandlers,
} from '../schemas/operations/index.js';
import { endedEarlier, waitOutcome } from '../service/commands.js';
import { historySince } from '../service/history.js';
import type { SupervisorPort } from '../service/port.js';
import { operationsFor } from '../terminal/operations.js';
import { errorJson } from './guards.js';
import { streamRecords, type SseOptions } from './sse.js';

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const body = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
});
export const ERRORS = {
  400: json(ErrorBody, 'invalid input: the message names the field'),
  401: json(ErrorBody, 'a bearer token is required'),
  403: json(
    ErrorBody,
    '`Host` is not a name of this service, or an action came from a foreign `Origin` or with neither a JSON body nor `X-Paneward`',
  ),
};
export const TERMINAL_ERRORS = { ...ERRORS, 404: json(ErrorBody, 'no terminal with that id') };
export const Params = z.object({ id: TerminalId });
const sseResponse = {
  200: {
    description:
      'Server-Sent Events: one event per record, `id` = its seq, `event` = its kind, `data` = the record (JSON); `heartbeat` events while idle; a final `overflow` event names where to resume when the client falls behind.',
    content: { 'text/event-stream': { schema: z.string() } },
  },
};
const TURN_RESULT = "the turn's result (`timeout` when it had not ended in time)";

/** Aborted when the client goes away: a wait for a turn stops with it. */
function clientGone(c: Context): AbortSignal {
  const abort = new AbortController();
  c.req.raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
  return abort.signal;
}

/**
 * The terminal routes, each the HTTP face of one operation's contract
 * (`src/schemas/operations/`): the path, query and body map onto the contract's input, the
 * handler is the same one a fleet edge runs.
 */
export function terminalRoutes(
  app: OpenAPIHono,
  sup: SupervisorPort,
  cmd: CommandHandlers,
  options: { screens?: boolean; token?: string },
): void {
  const view = (id: string): TerminalView => {
    const state = sup.get(id);
    const spawned = sup.spawnedOf?.(id) ?? null;
    const paneId = sup.paneIdOf?.(id) ?? null;
    return {
      ...state,
      ...(paneId ? { paneId } : {}),
      ...sup.viewDetails?.(id),
      operations: sup.operations?.(id) ?? operationsFor(state),
      ...(spawned ? { spawned } : {}),
    };
  };

  app.openapi(
    createRoute({
      ...list.http,
      summary: list.summary,
      responses: { 200: json(TerminalList, 'the terminals'), ...ERRORS },
    }),
    (c) => c.json({ terminals: sup.ids().map(view) }, 200),
  );

  app.openapi(
    createRoute({
      ...COMMANDS.attach.http,
      summary: `${COMMANDS.attach.summary}; or, with \`{spawn: {...}}\`: ${spawn.summary}`,
      request: { body: body(z.union([AttachBody, SpawnBody])) },
      responses: {
        201: json(z.union([SpawnView, TerminalView]), 'attached (or spawned: `spawned` says what)'),
        ...ERRORS,
        504: json(
          ErrorBody,
          'started, but not ready within `readyTimeoutSeconds` (its window is closed)',
        ),
      },
    }),
    async (c) => {
      const b = c.req.valid('json');
      if ('spawn' in b) {
        if (!sup.spawn) throw new PanewardError('refused', 'this server does not start sessions');
        const { terminalId } = await sup.spawn(b.spawn);
        return c.json(view(terminalId), 201);
      }
      const { terminalId } = await cmd.attach({ body: b });
      return c.json(view(terminalId), 201);
    },
  );

  app.openapi(
    createRoute({
      ...state.http,
      summary: state.summary,
      request: { params: Params },
      responses: { 200: json(TerminalView, 'the terminal'), ...TERMINAL_ERRORS },
    }),
    (c) => c.json(view(c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      ...history.http,
      summary: history.summary,
      request: { params: Params, query: history.input.omit({ id: true }) },
      responses: { 200: json(History, 'records'), ...TERMINAL_ERRORS },
    }),
    async (c) => {
      const id = c.req.valid('param').id;
      const { limit, since } = c.req.valid('query');
      if (since !== undefined) return c.json(await historySince(sup, id, since, limit), 200);
      return c.json({ records: await sup.history(id, limit) }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...COMMANDS.screen.http,
      summary: COMMANDS.screen.summary,
      request: { params: Params },
      responses: {
        200: json(Screen, 'the screen, or `text: null` before the first capture'),
        ...TERMINAL_ERRORS,
        403: json(ErrorBody, 'this server does not serve screens (or the request is forbidden)'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (options.screens === false) {
        sup.get(id);
        return c.json(errorJson('screens_disabled', 'this server does not serve screens'), 403);
      }
      const screen = await cmd.screen({ id });
      return c.json(screen ?? { text: null, t: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...COMMANDS.input.http,
      summary: COMMANDS.input.summary,
      request: { params: Params, body: body(InputBody) },
      responses: {
        202: json(InputAccepted, 'submitted: the turn it started'),
        409: json(ErrorBody, 'not ready: details give the readiness and why'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const input = { id: c.req.valid('param').id, body: c.req.valid('json') };
      return c.json(await cmd.input(input), 202);
    },
  );

  app.openapi(
    createRoute({
      ...COMMANDS.turns.http,
      summary: COMMANDS.turns.summary,
      request: { params: Params, body: body(TurnBody) },
      responses: {
        200: json(TurnResponse, TURN_RESULT),
        409: json(ErrorBody, 'not ready, or the terminal went away before the turn ended'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const input = { id: c.req.valid('param').id, body: c.req.valid('json') };
      return c.json(await cmd.turns(input, clientGone(c)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...COMMANDS.turn.http,
      summary: `${COMMANDS.turn.summary}, at once (\`ended: false\` while it runs); with \`timeoutSeconds\`: wait for a turn \`input\` started to end (a client that has printed the turn id waits here)`,
      request: { params: z.object({ id: TerminalId, turnId: TurnId }), query: TurnWaitQuery },
      responses: {
        200: json(
          z.union([TurnPayload, TurnResponse]),
          "without `timeoutSeconds`: the turn's payload (reply text, outcome, evidence, timing); with it: the turn's result (`timeout` when it had not ended in time), its payload in `payload`",
        ),
        409: json(ErrorBody, 'the terminal went away before the turn ended'),
        ...TERMINAL_ERRORS,
        404: json(
          ErrorBody,
          'no terminal with that id (`unknown_terminal`), or no such turn on it (`unknown_turn`: not its current, last or a recent one; for a payload, not one of its latest 20 turns)',
        ),
      },
    }),
    async (c) => {
      const { id, turnId } = c.req.valid('param');
      const seconds = c.req.valid('query').timeoutSeconds;
      if (seconds === undefined) return c.json(await cmd.turn({ id, turnId }), 200);
      const ms = Math.round(seconds * 1000);
      const over = await endedEarlier(sup, id, turnId);
      if (over) return c.json(over, 200);
      return c.json(await waitOutcome(sup, id, turnId, ms, clientGone(c)), 200);
    },
  );

  for (const name of ['interrupt', 'resume'] as const) {
    app.openapi(
      createRoute({
        ...COMMANDS[name].http,
        summary: COMMANDS[name].summary,
        request: { params: Params },
        responses: { 200: json(COMMANDS[name].output, 'done'), ...TERMINAL_ERRORS },
      }),
      async (c) => c.json(await cmd[name]({ id: c.req.valid('param').id }), 200),
    );
  }

  // Which token answered, for the journal: a short hash, never the token.
  const tokenId = options.token
    ? `tok-${createHash('sha256').update(options.token).digest('hex').slice(0, 8)}`
    : null;
  app.openapi(
    createRoute({
      ...answer.http,
      summary: answer.summary,
      request: { params: Params, body: body(AnswerBody) },
      responses: {
        200: json(AnswerDone, 'typed, and the dialog closed'),
        409: json(
          ErrorBody,
          '`refused`: no question waits, another question is on screen, or it changed before the keys; `answer_failed`: the dialog was still drawn after the keys (nothing more was typed)',
        ),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const done = await cmd.answer({ id, body: c.req.valid('json'), tokenId });
      return c.json(done, 200);
    },
  );

  app.openapi(
    createRoute({
      ...COMMANDS.detach.http,
      summary: `${COMMANDS.detach.summary}; with \`stop=true\`: ${stop.summary}`,
      request: { params: Params, query: DeleteQuery },
      responses: {
        200: json(z.union([StopAnswer, COMMANDS.detach.output]), 'detached (or stopped)'),
        409: json(ErrorBody, 'stop refused: the pane was not started by paneward, or not ready'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const q = c.req.valid('query');
      if (q.stop !== true) {
        if (q.removeWorktree === true) {
          throw new PanewardError(
            'invalid_input',
            'query `removeWorktree`: only with `stop=true` (a detached CLI still runs in it)',
          );
        }
        return c.json(await cmd.detach({ id }), 200);
      }
      if (!sup.stopTerminal)
        throw new PanewardError('refused', 'this server does not stop sessions');
      const input = {
        id,
        ...(q.force !== undefined ? { force: q.force } : {}),
        ...(q.removeWorktree !== undefined ? { removeWorktree: q.removeWorktree } : {}),
        ...(q.timeoutSeconds !== undefined ? { timeoutSeconds: q.timeoutSeconds } : {}),
      };
      return c.json(await sup.stopTerminal(input), 200);
    },
  );
}

/** `Last-Event-ID` or `?since=`, whichever says more. */
function resumeFrom(c: Context, since: number | undefined): number {
  const header = c.req.header('last-event-id');
  if (header === undefined || header === '') return since ?? 0;
  if (!/^\d{1,15}$/.test(header)) {
    throw new PanewardError(
      'invalid_input',
      'header `Last-Event-ID`: must be the seq of a record (a whole number)',
    );
  }
  return Math.max(Number(header), since ?? 0);
}

/** The record stream over SSE: every terminal's, or one's. */
export function eventRoutes(
  app: OpenAPIHono,
  sup: SupervisorPort,
  sse: SseOptions,
  onOpen: () => () => void,
): void {
  app.openapi(
    createRoute({
      ...events.http,
      summary: events.summary,
      request: { query: events.input },
      responses: { ...sseResponse, ...ERRORS },
    }),
    (c) => {
      const since = resumeFrom(c, c.req.valid('query').since);
      return streamRecords(c, sup.journal, { since, sse, onOpen });
    },
  );

  app.openapi(
    createRoute({
      ...terminalEvents.http,
      summary: terminalEvents.summary,
      request: { params: Params, query: terminalEvents.input.omit({ id: true }) },
      responses: { ...sseResponse, ...TERMINAL_ERRORS },
    }),
    (c) => {
      const { id } = c.req.valid('param');
      sup.get(id);
      const since = resumeFrom(c, c.req.valid('query').since);
      return streamRecords(c, sup.journal, { since, terminalId: id, sse, onOpen });
    },
  );
}
