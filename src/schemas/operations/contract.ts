import { z } from '@hono/zod-openapi';
import type { PanewardErrorCode } from '../../errors.js';

/** The ways into the service besides its HTTP API, each of which serves an operation or says why not. */
export const SURFACES = ['cli', 'mcp', 'fleet'] as const;
export type Surface = (typeof SURFACES)[number];

/** Where the HTTP API serves an operation; `{id}` and `{turnId}` in the path are input fields. */
export interface HttpRoute {
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
}

/**
 * One operation of the service, written once: its name, what it takes and answers (zod), the
 * error codes it may answer with, and its HTTP route. The HTTP routes, the fleet edge's
 * dispatcher, the fleet view, the CLI client and the MCP tools are all built from these, so they
 * cannot drift apart.
 *
 * `input` is the operation's whole input as it travels between hosts (the fleet's request/reply
 * carries exactly this beside `op`); an HTTP route maps its path, query and body onto it.
 */
export interface OperationContract<
  N extends string = string,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
> {
  readonly name: N;
  readonly summary: string;
  readonly input: I;
  readonly output: O;
  /** Every `PanewardError` code the operation may answer with. */
  readonly errors: readonly PanewardErrorCode[];
  readonly http: HttpRoute;
  /**
   * How `output` travels: one JSON answer (the default); a Server-Sent Events stream with one
   * `output` per event; or plain text that `output` describes.
   */
  readonly answers?: 'json' | 'event-stream' | 'text';
  /** The surfaces that do not serve it, each with the reason; every other one does. */
  readonly notServed?: Partial<Record<Surface, string>>;
}

export function defineOperation<N extends string, I extends z.ZodObject, O extends z.ZodType>(
  contract: OperationContract<N, I, O>,
): OperationContract<N, I, O> {
  return contract;
}

/** Errors any operation on one terminal may answer with (served locally or through a fleet). */
export const TERMINAL_ERRORS = [
  'invalid_input',
  'unknown_terminal',
  'stopped',
  'host_unreachable',
  'host_timeout',
  'host_refused',
  // Through a fleet: the owning host's paneward is too old to know the command; nothing ran.
  'unsupported',
  'aborted',
  'internal',
] as const satisfies readonly PanewardErrorCode[];

/** Errors of an operation that types into the pane. */
export const TMUX_ERRORS = [
  'tmux_missing',
  'tmux_failed',
  'tmux_timeout',
] as const satisfies readonly PanewardErrorCode[];

/** Every error the API answers with: a stable code, a sentence, and what it is about. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'not_ready' }),
      message: z.string(),
      details: z.unknown().nullable(),
    }),
  })
  .openapi('Error');

/** A host of a fleet: it names subjects and keys, so no dot and no slash. */
export const HostId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, dash or underscore, at most 64');

/** A terminal id; a fleet view qualifies it by its host: `host/id` (`host%2Fid` in a path). */
export const TerminalId = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9_-]{1,64}\/)?[A-Za-z0-9._-]{1,64}$/,
    'letters, digits, dot, dash or underscore, at most 64 (in a fleet: host/id)',
  )
  .openapi({ param: { name: 'id', in: 'path' }, example: 't1' });

/** A turn id as `input` answered it, as a field. */
export const TurnIdField = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a turn id such as turn-3')
  .describe('The turn id the prompt was answered with (e.g. "turn-3").');

/** The same, as a path parameter. */
export const TurnId = TurnIdField.openapi({
  param: { name: 'turnId', in: 'path' },
  example: 'turn-3',
});

/** What a command that only acts answers. */
export const Accepted = z.object({ ok: z.literal(true) }).openapi('Ok');
