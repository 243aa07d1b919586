import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { PanewardError } from '../errors.js';
import {
  COMMANDS,
  ErrorBody,
  hook,
  HookAnswer,
  ObservationAnswer,
  ObservationBody,
  type CommandHandlers,
} from '../schemas/operations/index.js';
import type { SupervisorPort } from '../service/port.js';
import { bodyLimit } from 'hono/body-limit';
import { errorJson } from './guards.js';
import { body, ERRORS, json, Params, TERMINAL_ERRORS } from './routes.js';

/** A hook's post is a few names: anything larger is not one. */
const HOOK_BODY_BYTES = 4096;

/**
 * Hook events (docs/hooks.md): what a CLI's hook posts about its own turns, taken as a witness
 * of the terminal supervising its pane. The same protections as every route that acts (token,
 * `Host`/`Origin`, a JSON body), and a small body cap. Nothing is ever typed.
 */
export function hookRoutes(app: OpenAPIHono, sup: SupervisorPort): void {
  app.use(
    '/v1/hooks/*',
    bodyLimit({
      maxSize: HOOK_BODY_BYTES,
      onError: (c) =>
        c.json(
          errorJson('payload_too_large', `a hook event is at most ${HOOK_BODY_BYTES} bytes`),
          413,
        ),
    }),
  );
  app.openapi(
    createRoute({
      ...hook.http,
      summary: hook.summary,
      request: { params: hook.input.pick({ tool: true }), body: body(hook.input.shape.body) },
      responses: {
        200: json(HookAnswer, 'taken (or ignored: the event tells no turn)'),
        ...ERRORS,
        404: json(ErrorBody, 'no supervised terminal runs in that pane of this tmux server'),
        409: json(ErrorBody, 'the pane is supervised as another tool'),
      },
    }),
    async (c) => {
      if (!sup.hookEvent) throw new PanewardError('refused', 'this server takes no hook events');
      const answer = await sup.hookEvent(c.req.valid('param').tool, c.req.valid('json'));
      return c.json(answer, 200);
    },
  );
}

/** An observer's ending is a few names: anything larger is not one. */
const OBSERVATION_BODY_BYTES = 4096;

/**
 * Completion observers outside the service (docs/witness.md): an ending of a terminal's open
 * turn, taken as a witness under its completion authority. The same protections as every route
 * that acts (token, `Host`/`Origin`, a JSON body), and a small body cap. Nothing is ever typed.
 */
export function observationRoutes(app: OpenAPIHono, cmd: CommandHandlers): void {
  app.use(
    '/v1/terminals/:id/observations',
    bodyLimit({
      maxSize: OBSERVATION_BODY_BYTES,
      onError: (c) =>
        c.json(
          errorJson(
            'payload_too_large',
            `an observer's ending is at most ${OBSERVATION_BODY_BYTES} bytes`,
          ),
          413,
        ),
    }),
  );
  app.openapi(
    createRoute({
      ...COMMANDS.observe.http,
      summary: COMMANDS.observe.summary,
      request: { params: Params, body: body(ObservationBody) },
      responses: {
        200: json(
          ObservationAnswer,
          'taken (or ignored: the screen alone decides, or an observer already ended the turn)',
        ),
        409: json(
          ErrorBody,
          '`refused`: the turn named is not the open one (details: `reason`, `currentTurnId`); `not_ready`: the terminal is restarting',
        ),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const input = { id: c.req.valid('param').id, body: c.req.valid('json') };
      return c.json(await cmd.observe(input), 200);
    },
  );
}
