import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  ErrorBody,
  HoumaoInputAccepted,
  houmaoInput,
  HoumaoState,
  houmaoState,
  recentTransitions,
  RECENT_TRANSITIONS,
  TerminalId,
  toHoumao,
  type CommandHandlers,
} from '../schemas/operations/index.js';
import type { SupervisorPort } from '../service/port.js';
import { operationsFor } from '../terminal/operations.js';
import { body, ERRORS, json } from './routes.js';

const Params = z.object({ id: TerminalId });
const TERMINAL_ERRORS = { ...ERRORS, 404: json(ErrorBody, 'no terminal with that id') };

/**
 * The original design's two routes, for clients written against it (docs/service.md): a thin
 * adapter over the `/v1` contract. The state is `GET /v1/terminals/{id}` under snake_case names;
 * the input goes through the very command `POST /v1/terminals/{id}/input` runs (the same gate),
 * behind the same `Host`/`Origin` checks, token and body limit the app puts on every route.
 */
export function houmaoRoutes(app: OpenAPIHono, sup: SupervisorPort, cmd: CommandHandlers): void {
  app.openapi(
    createRoute({
      ...houmaoState.http,
      summary: houmaoState.summary,
      request: { params: Params },
      responses: { 200: json(HoumaoState, 'the terminal'), ...TERMINAL_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const state = sup.get(id);
      const ops = sup.operations?.(id) ?? operationsFor(state);
      // Enough records to hold the latest steps: most state records carry one or two.
      const records = await sup.history(id, RECENT_TRANSITIONS * 4);
      return c.json(toHoumao(state, ops, recentTransitions(records)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...houmaoInput.http,
      summary: houmaoInput.summary,
      request: { params: Params, body: body(houmaoInput.input.shape.body) },
      responses: {
        202: json(HoumaoInputAccepted, 'submitted: the turn it started'),
        409: json(ErrorBody, 'not ready: details give the readiness and why'),
        ...TERMINAL_ERRORS,
      },
    }),
    async (c) => {
      const input = { id: c.req.valid('param').id, body: c.req.valid('json') };
      const { turnId } = await cmd.input(input);
      return c.json({ turn_id: turnId }, 202);
    },
  );
}
