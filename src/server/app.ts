import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { isPanewardError, PanewardError, type PanewardErrorCode } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { operationsFor } from '../supervisor/operations.js';
import { createMetrics, type ServerMetrics } from './metrics.js';
import { observerView } from './observer.js';
import type { SupervisorPort } from './port.js';
import type { JournalRecord } from '../schemas/record.js';
import {
  Accepted,
  AttachBody,
  ErrorBody,
  EventsQuery,
  Health,
  History,
  HistoryQuery,
  InputAccepted,
  InputBody,
  Screen,
  TerminalId,
  TerminalList,
  TerminalView,
  TurnBody,
  TurnId,
  TurnResponse,
  TurnWaitQuery,
} from './schemas.js';
import { isPublic, mountDashboard } from './dashboard.js';
import { DEFAULT_SSE, streamRecords, type SseOptions } from './sse.js';

export interface HttpAppOptions {
  /** Bearer token every request but `/healthz` and `/openapi.json` must carry; none: no check. */
  token?: string;
  /** Origins allowed by CORS; none (the default): CORS is off. */
  corsOrigins?: string[];
  /** Largest request body accepted, in bytes; default 256 KiB. */
  maxBodyBytes?: number;
  sse?: Partial<SseOptions>;
  logger?: Logger;
  /**
   * Serve each pane's latest screen at `/v1/terminals/{id}/screen` (default true). Screens can
   * hold secrets: turn it off where the API is shared more widely than the panes.
   */
  screens?: boolean;
  /** Serve the dashboard at `/` (default true). */
  dashboard?: boolean;
  /**
   * Names the service answers to besides the loopback ones (`127.0.0.1`, `localhost`, `[::1]`):
   * a request whose `Host` names anything else is refused (403), so a page on a rebound DNS name
   * can neither act nor read.
   */
  allowedHosts?: string[];
}

/** The HTTP API of a supervisor (or a fleet of them): a Hono app, a Node request listener, its metrics. */
export interface HttpApp {
  app: OpenAPIHono;
  /** Mount in any `node:http` server (Express and Fastify take it too). */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  metrics: ServerMetrics;
  /** Stops the metrics' subscriptions (the supervisor is the caller's). */
  close(): void;
}

const STATUS: Partial<Record<PanewardErrorCode | string, ContentfulStatusCode>> = {
  invalid_input: 400,
  unauthorized: 401,
  unknown_terminal: 404,
  not_found: 404,
  not_ready: 409,
  refused: 409,
  stopped: 409,
  payload_too_large: 413,
  // The pane (or its tmux server) is gone: the terminal cannot take the command.
  tmux_missing: 409,
  tmux_failed: 502,
  tmux_timeout: 504,
  // A fleet could not reach the host that owns the terminal: the command was not delivered.
  host_unreachable: 503,
  // The owning host did not answer in time: the command may or may not have reached it.
  host_timeout: 504,
  // The client went away (or aborted) before the answer: nobody reads this status.
  aborted: 499 as ContentfulStatusCode,
};

const errorJson = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, details },
});

/** The names every service answers to: the loopback ones. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The name part of a `Host` header (or an allowed-host entry): lower case, no port. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  // A bare IPv6 address (given on the command line) is written as a URL writes it.
  if (h.split(':').length > 2) return `[${h}]`;
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What a browser on another site must not do: reach the service under a name that is not its
 * own (DNS rebinding), or make it act from another origin (a form post, `fetch` with
 * `no-cors`, `sendBeacon`). `Host` must name the service; a request that acts must not come
 * from a foreign `Origin` (none at all, as from curl, passes) and must carry a JSON body or an
 * `X-Paneward` header, neither of which a page on another origin can send without the
 * preflight the service never grants.
 */
function browserGuard(allowed: string[], corsOrigins: string[]): MiddlewareHandler {
  const names = new Set([...LOOPBACK_NAMES, ...allowed.map(hostName)]);
  const cors = new Set(corsOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const forbidden = (c: Context, header: string, message: string, value: string | null) =>
    c.json(errorJson('forbidden', `header \`${header}\`: ${message}`, { header, value }), 403);
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!names.has(hostName(host))) {
      return forbidden(
        c,
        'Host',
        `${JSON.stringify(host)} is not a name of this service (loopback only; add one with --allowed-host NAME)`,
        host,
      );
    }
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      let same = false;
      try {
        same = new URL(origin).host.toLowerCase() === host.toLowerCase();
      } catch {
        same = false;
      }
      if (!same && !cors.has(origin.toLowerCase())) {
        return forbidden(
          c,
          'Origin',
          `a request from ${JSON.stringify(origin)} may not act on this service`,
          origin,
        );
      }
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const marked = (c.req.header('x-paneward') ?? '') !== '';
    if (type !== 'application/json' && !marked) {
      return forbidden(
        c,
        'Content-Type',
        'a request that acts needs a JSON body (Content-Type: application/json) or the header X-Paneward: 1',
        c.req.header('content-type') ?? null,
      );
    }
    return next();
  };
}

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const ERRORS = {
  400: json(ErrorBody, 'invalid input: the message names the field'),
  401: json(ErrorBody, 'a bearer token is required'),
  403: json(
    ErrorBody,
    '`Host` is not a name of this service, or an action came from a foreign `Origin` or with neither a JSON body nor `X-Paneward`',
  ),
};
const TERMINAL_ERRORS = { ...ERRORS, 404: json(ErrorBody, 'no terminal with that id') };
const Params = z.object({ id: TerminalId });
const sseResponse = {
  200: {
    description:
      'Server-Sent Events: one event per record, `id` = its seq, `event` = its kind, `data` = the record (JSON); `heartbeat` events while idle; a final `overflow` event names where to resume when the client falls behind.',
    content: { 'text/event-stream': { schema: z.string() } },
  },
};

/** Compares a presented token with the expected one in constant time. */
function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function bearer(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!tokenMatches(presented, token)) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json(errorJson('unauthorized', 'a valid bearer token is required'), 401);
    }
    await next();
  };
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

/**
 * The HTTP API (contracts.md §5) of a supervisor, as a Hono app and a Node request listener:
 * routes and bodies are zod schemas, `/openapi.json` is generated from them, every state read
 * says which operations are acceptable now, events stream the journal over SSE. It serves
 * anything that satisfies {@link SupervisorPort}: a `Supervisor`, or the fleet view.
 */
/** How many of the journal's latest records (all terminals) `history?since=` reads at most. */
const SINCE_WINDOW = 10_000;

/**
 * A terminal's records made at or after `since`, oldest first, and the time from which they are
 * all there: the ones kept for it, and when those do not reach back that far, the journal's
 * latest records of it before them (else only as far back as those reach).
 */
async function historySince(
  sup: SupervisorPort,
  id: string,
  since: string,
  limit: number,
): Promise<{ records: JournalRecord[]; completeSince: string }> {
  const from = Date.parse(since);
  let records = await sup.history(id);
  let completeSince = since;
  const oldest = records[0];
  if (oldest !== undefined && Date.parse(oldest.at) > from) {
    const window = await sup.journal.readAfter(Math.max(0, sup.journal.durableSeq - SINCE_WINDOW), {
      limit: SINCE_WINDOW,
    });
    const first = window[0];
    const last = window[window.length - 1];
    if (first === undefined || last === undefined || last.seq < oldest.seq - 1) {
      // The window does not join the kept records: only those are sure to be complete.
      completeSince = oldest.at;
    } else {
      records = [...window.filter((r) => r.terminalId === id && r.seq < oldest.seq), ...records];
      if (Date.parse(first.at) > from) completeSince = first.at;
    }
  }
  records = records.filter((r) => Date.parse(r.at) >= from);
  if (records.length > limit) {
    records = records.slice(-limit);
    completeSince = records[0]!.at;
  }
  return { records, completeSince };
}

export function createHttpApp(sup: SupervisorPort, options: HttpAppOptions = {}): HttpApp {
  const log = options.logger;
  const metrics = createMetrics(sup);
  const sse: SseOptions = { ...DEFAULT_SSE, ...options.sse };
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (result.success) return;
      const target = (result as { target?: string }).target ?? 'request';
      const where =
        { json: 'body', param: 'path', query: 'query', header: 'header' }[target] ?? target;
      return c.json(
        errorJson(
          'invalid_input',
          `${where}: ${describeZodError(result.error)}`,
          result.error.issues,
        ),
        400,
      );
    },
  });

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    log?.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });
  app.use('*', browserGuard(options.allowedHosts ?? [], options.corsOrigins ?? []));
  if (options.corsOrigins && options.corsOrigins.length > 0) {
    app.use('*', cors({ origin: options.corsOrigins }));
  }
  app.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 256 * 1024,
      onError: (c) =>
        c.json(
          errorJson(
            'payload_too_large',
            `the request body is larger than ${options.maxBodyBytes ?? 256 * 1024} bytes`,
          ),
          413,
        ),
    }),
  );
  if (options.token) {
    const check = bearer(options.token);
    app.use('*', async (c, next) => {
      // The page and the diagrams hold no data: the page asks for the token itself.
      if (isPublic(c.req.path)) return next();
      return check(c, next);
    });
  }
  if (options.dashboard ?? true) mountDashboard(app);

  /** Waits for a turn to end; a wait that ran out answers `timeout` with what is known. */
  const waitOrTimeout = async (c: Context, id: string, turnId: string, seconds: number) => {
    const abort = new AbortController();
    c.req.raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
    try {
      return await sup.waitForTurn(id, turnId, {
        timeoutMs: Math.round(seconds * 1000),
        signal: abort.signal,
      });
    } catch (error) {
      if (isPanewardError(error) && error.code === 'timeout') {
        const s = sup.get(id);
        return {
          turnId,
          result: 'timeout' as const,
          completion: s.completion?.turnId === turnId ? s.completion : null,
          lastTurn: s.lastTurn,
        };
      }
      throw error;
    }
  };

  const view = (id: string) => {
    const state = sup.get(id);
    return {
      ...state,
      ...sup.viewDetails?.(id),
      operations: sup.operations?.(id) ?? operationsFor(state),
    };
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      summary: 'The service is up',
      responses: {
        200: json(Health, 'up'),
        503: json(
          Health,
          'up, but the journal cannot write (a full disk): nothing new is recorded',
        ),
      },
    }),
    (c) => {
      const failure = sup.journal.failure ?? null;
      return c.json(
        {
          status: failure ? ('unavailable' as const) : ('ok' as const),
          terminals: sup.ids().length,
          journal: {
            lastSeq: sup.journal.lastSeq,
            durableSeq: sup.journal.durableSeq,
            ...(sup.journal.failure === undefined ? {} : { failure }),
          },
          observer: observerView(sup.observer?.() ?? null),
          ...sup.healthDetails?.(),
        },
        failure ? 503 : 200,
      );
    },
  );

  app.get('/metrics', async (c) => {
    c.header('Content-Type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics());
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/terminals',
      summary: 'Every attached terminal',
      responses: { 200: json(TerminalList, 'the terminals'), ...ERRORS },
    }),
    (c) => c.json({ terminals: sup.ids().map(view) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/terminals',
      summary: 'Attach a pane (the tool is detected when not given)',
      request: {
        body: { content: { 'application/json': { schema: AttachBody } }, required: true },
      },
      responses: { 201: json(TerminalView, 'attached'), ...ERRORS },
    }),
    async (c) => {
      const id = await sup.attach(c.req.valid('json'));
      return c.json(view(id), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/terminals/{id}',
      summary: "A terminal's public state and the operations it accepts now",
      request: { params: Params },
      responses: { 200: json(TerminalView, 'the terminal'), ...TERMINAL_ERRORS },
    }),
    (c) => c.json(view(c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/terminals/{id}/history',
      summary: "A terminal's latest records, oldest first",
      request: { params: Params, query: HistoryQuery },
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
      method: 'get',
      path: '/v1/terminals/{id}/screen',
      summary: "The pane's latest capture as text (when screens are served)",
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
      const screen = await sup.screen(id);
      return c.json(screen ?? { text: null, t: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/terminals/{id}/input',
      summary: 'Type a prompt literally and submit it (refused unless ready, or forced)',
      request: {
        params: Params,
        body: { content: { 'application/json': { schema: InputBody } }, required: true },
      },
      responses: {
        202: json(InputAccepted, 'submitted: the turn it started'),
        409: json(ErrorBody, 'not ready: details give the readiness and why'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const turnId = await sup.submit(id, body.text, { force: body.force ?? false });
      return c.json({ turnId }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/terminals/{id}/turns',
      summary: 'Submit a prompt and wait for that turn to end',
      request: {
        params: Params,
        body: { content: { 'application/json': { schema: TurnBody } }, required: true },
      },
      responses: {
        200: json(TurnResponse, "the turn's result (`timeout` when it had not ended in time)"),
        409: json(ErrorBody, 'not ready, or the terminal went away before the turn ended'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const turnId = await sup.submit(id, body.prompt, { force: body.force ?? false });
      return c.json(await waitOrTimeout(c, id, turnId, body.timeoutSeconds), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/terminals/{id}/turns/{turnId}',
      summary:
        'Wait for a turn `input` started to end (a client that has printed the turn id waits here)',
      request: { params: z.object({ id: TerminalId, turnId: TurnId }), query: TurnWaitQuery },
      responses: {
        200: json(TurnResponse, "the turn's result (`timeout` when it had not ended in time)"),
        409: json(ErrorBody, 'the terminal went away before the turn ended'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const { id, turnId } = c.req.valid('param');
      const { timeoutSeconds } = c.req.valid('query');
      const now = sup.get(id);
      // Over already, and its completion since cleared: its own outcome is the answer.
      if (
        now.lastTurn.turnId === turnId &&
        now.turn.current?.id !== turnId &&
        now.completion?.turnId !== turnId
      ) {
        return c.json(
          { turnId, result: 'completed' as const, completion: null, lastTurn: now.lastTurn },
          200,
        );
      }
      return c.json(await waitOrTimeout(c, id, turnId, timeoutSeconds), 200);
    },
  );

  for (const [name, summary] of [
    ['interrupt', "Send the tool's interrupt keys"],
    ['resume', 'Resume a session the watchdog blocked (a fresh window)'],
  ] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/terminals/{id}/${name}`,
        summary,
        request: { params: Params },
        responses: { 200: json(Accepted, 'done'), ...TERMINAL_ERRORS },
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        await (name === 'interrupt' ? sup.interrupt(id) : sup.resume(id));
        return c.json({ ok: true as const }, 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/terminals/{id}',
      summary: 'Detach a terminal (recorded: a restarted server will not re-attach it)',
      request: { params: Params },
      responses: { 200: json(Accepted, 'detached'), ...TERMINAL_ERRORS },
    }),
    async (c) => {
      await sup.detach(c.req.valid('param').id);
      return c.json({ ok: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/events',
      summary: 'The record stream, from `Last-Event-ID` or `since`, then live',
      request: { query: EventsQuery },
      responses: { ...sseResponse, ...ERRORS },
    }),
    (c) => {
      const since = resumeFrom(c, c.req.valid('query').since);
      return streamRecords(c, sup.journal, { since, sse, onOpen: () => metrics.sseOpened() });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/terminals/{id}/events',
      summary: "One terminal's records, from `Last-Event-ID` or `since`, then live",
      request: { params: Params, query: EventsQuery },
      responses: { ...sseResponse, ...TERMINAL_ERRORS },
    }),
    (c) => {
      const { id } = c.req.valid('param');
      sup.get(id);
      const since = resumeFrom(c, c.req.valid('query').since);
      return streamRecords(c, sup.journal, {
        since,
        terminalId: id,
        sse,
        onOpen: () => metrics.sseOpened(),
      });
    },
  );

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'paneward',
      version: '1',
      description:
        'Supervisor for AI coding-agent terminals: truthful readiness, turn and completion state for every tmux pane.',
    },
  });

  app.notFound((c) =>
    c.json(errorJson('not_found', `no route ${c.req.method} ${c.req.path}`), 404),
  );
  app.onError((err, c) => {
    if (isPanewardError(err)) {
      const status = STATUS[err.code] ?? 500;
      if (status >= 500) log?.error({ err }, 'request failed');
      return c.json({ error: err.toJSON() }, status);
    }
    if (err instanceof HTTPException) {
      const status = err.status as ContentfulStatusCode;
      const message =
        status === 400 && /json/i.test(err.message)
          ? 'body: not valid JSON'
          : err.message || 'bad request';
      return c.json(errorJson(status === 400 ? 'invalid_input' : 'http_error', message), status);
    }
    log?.error({ err }, 'request failed');
    return c.json(errorJson('internal', 'internal error'), 500);
  });

  return {
    app,
    listener: getRequestListener(app.fetch),
    metrics,
    close: () => metrics.stop(),
  };
}
