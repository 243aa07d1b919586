import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { isPanewardError, type PanewardErrorCode } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { portCommands } from '../service/commands.js';
import { observerView } from '../service/observer.js';
import type { SupervisorPort } from '../service/port.js';
import { isPublic, mountDashboard } from './dashboard.js';
import { bearer, browserGuard, errorJson, hostName } from './guards.js';
import { createMetrics, type ServerMetrics } from './metrics.js';
import { houmaoRoutes } from './houmao.js';
import { ERRORS, eventRoutes, json, terminalRoutes } from './routes.js';
import { hookRoutes, observationRoutes } from './witness-routes.js';
import {
  Health,
  health,
  metrics as metricsOp,
  spawnPresets,
  type SpawnPresets,
} from '../schemas/operations/index.js';
import { DEFAULT_SSE, type SseOptions } from './sse.js';

export { hostName };

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
   * What the dashboard's Start form fills in when a tool is chosen (its folder and environment),
   * served at `GET /v1/spawn-presets`; `paneward demo` gives the offline set-up of each CLI.
   */
  spawnPresets?: SpawnPresets;
  /**
   * Names the service answers to besides the loopback ones (`127.0.0.1`, `localhost`, `[::1]`):
   * a request whose `Host` names anything else is refused (403), so a page on a rebound DNS name
   * can neither act nor read.
   */
  allowedHosts?: string[];
}

export type { SpawnPresets };

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
  unknown_turn: 404,
  not_found: 404,
  not_ready: 409,
  refused: 409,
  answer_failed: 409,
  stopped: 409,
  payload_too_large: 413,
  // The pane (or its tmux server) is gone: the terminal cannot take the command.
  tmux_missing: 409,
  tmux_failed: 502,
  tmux_timeout: 504,
  // A spawned CLI was not ready in time (the request names the field).
  timeout: 504,
  // A fleet could not reach the host that owns the terminal: the command was not delivered.
  host_unreachable: 503,
  // The owning host did not answer in time: the command may or may not have reached it.
  host_timeout: 504,
  // The owning host refused the fleet server's signature (another fleet token): not run.
  host_refused: 502,
  // The owning host runs a paneward too old for the command (it does not know it): not run.
  unsupported: 501,
  // The client went away (or aborted) before the answer: nobody reads this status.
  aborted: 499 as ContentfulStatusCode,
};

/**
 * The HTTP API (docs/contracts.md §5) of a supervisor, as a Hono app and a Node request listener:
 * routes and bodies are zod schemas, `/openapi.json` is generated from them, every state read
 * says which operations are acceptable now, events stream the journal over SSE. It serves
 * anything that satisfies {@link SupervisorPort}: a `Supervisor`, or the fleet view.
 */
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
    // One line per request only at `debug` (`serve --log-level debug`): at the default level a
    // service started in someone's terminal stays quiet while it is used. A request the server
    // failed (5xx) is a warning at any level.
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (c.res.status >= 500) log?.warn(fields, 'request');
    else log?.debug(fields, 'request');
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

  app.openapi(
    createRoute({
      ...health.http,
      summary: health.summary,
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
            ...(sup.journal.integrity === undefined ? {} : { integrity: sup.journal.integrity }),
          },
          observer: observerView(sup.observer?.() ?? null),
          ...sup.healthDetails?.(),
        },
        failure ? 503 : 200,
      );
    },
  );

  app.openapi(
    createRoute({
      ...metricsOp.http,
      summary: metricsOp.summary,
      responses: {
        200: {
          description: 'the counters',
          content: { 'text/plain': { schema: metricsOp.output } },
        },
      },
    }),
    async (c) =>
      c.text(await metrics.registry.metrics(), 200, {
        'Content-Type': metrics.registry.contentType,
      }),
  );

  // Behind the token like the rest of /v1: a preset may hold keys (the demo's are fake).
  app.openapi(
    createRoute({
      ...spawnPresets.http,
      summary: spawnPresets.summary,
      responses: { 200: json(spawnPresets.output, 'the presets, by tool'), ...ERRORS },
    }),
    (c) => c.json({ presets: options.spawnPresets ?? {} }, 200),
  );

  const commands = portCommands(sup);
  terminalRoutes(app, sup, commands, options);
  houmaoRoutes(app, sup, commands);
  hookRoutes(app, sup);
  observationRoutes(app, commands);
  eventRoutes(app, sup, sse, () => metrics.sseOpened());

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
