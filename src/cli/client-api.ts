import type { z } from 'zod';
import { PanewardError } from '../errors.js';
import { readTokenFile } from '../internal/token-file.js';
import { describeZodError } from '../internal/zod-errors.js';
import type {
  Accepted,
  AttachBody,
  History as HistoryContract,
  InputBody,
  OperationName,
  Operations,
  Screen as ScreenContract,
  SpawnRequest,
  SpawnView,
  StopAnswer,
  StopInput,
  TerminalView,
  TurnResponse,
} from '../schemas/operations/index.js';
import { DEFAULT_URL } from '../service/address.js';
import { EXIT } from './exit.js';

/** The contracts, loaded when a command first talks to the server (not for `--help`). */
const contracts = () => import('../schemas/operations/index.js');

export { CliExit, EXIT, EXIT_HELP } from './exit.js';

/** Errors of a connection that was never made: the request was not sent. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'BAD_PORT',
]);

export interface ClientOptions {
  url?: string;
  tokenFile?: string;
  json?: boolean;
}

/**
 * The server's error codes → exit codes. A fleet server that cannot deliver a command because
 * the pane's host is unreachable answers like a server that cannot be reached: the command did
 * not run (a host that timed out may have run it, so that one stays a server error).
 */
export function exitFor(status: number, code: string): number {
  if (status === 400 || code === 'invalid_input') return EXIT.usage;
  if (code === 'host_unreachable') return EXIT.unreachable;
  // The pane's host refused the fleet server's signature: nothing ran; a matter of tokens.
  if (code === 'host_refused') return EXIT.unauthorized;
  // The pane's host is too old for the command: refused, nothing ran.
  if (code === 'unsupported') return EXIT.notReady;
  if (status === 401) return EXIT.unauthorized;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.notReady;
  return EXIT.server;
}

/** A thin client of `paneward serve`: JSON in and out, errors become exit codes. */
export class ApiClient {
  readonly url: string;
  private readonly token: string | null;

  constructor(o: ClientOptions, env: NodeJS.ProcessEnv) {
    this.url = (o.url ?? env.PANEWARD_URL ?? DEFAULT_URL).replace(/\/+$/, '');
    try {
      new URL(this.url);
    } catch {
      throw new PanewardError('invalid_input', `field \`url\`: not a URL: ${this.url}`);
    }
    this.token = o.tokenFile
      ? readTokenFile(o.tokenFile, 'field `tokenFile`')
      : env.PANEWARD_TOKEN?.trim() || null;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    // The service refuses an action that carries neither a JSON body nor this header.
    return {
      'x-paneward': '1',
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...extra,
    };
  }

  /**
   * One request. A connection that could not be made is `unreachable` (exit 4: nothing ran); one
   * lost after a request that acts was sent is `connection_lost` (exit 8: it may have run, so a
   * script must look before it retries). A read that was lost is as unreachable as before.
   */
  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const acts = method !== 'GET' && method !== 'HEAD';
    const lost = (error: unknown, sent: boolean) => {
      // Unknown failures count as sent: a script told "may have run" looks before it retries.
      if (!acts || (!sent && NOT_SENT.has(codeOf(error)))) {
        return new ClientError(
          EXIT.unreachable,
          'unreachable',
          `cannot reach paneward at ${this.url}: ${causeOf(error)}`,
        );
      }
      return new ClientError(
        EXIT.mayHaveRun,
        'connection_lost',
        `lost the connection to paneward at ${this.url} after sending ${method} ${path} (${causeOf(error)}): it may have run; look before retrying`,
      );
    };
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw lost(error, false);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw lost(error, true);
    }
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) throw answerError(res.status, data);
    return data as T;
  }

  /** One request whose answer is checked against the operation's contract. */
  async call<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<z.output<S>> {
    const data = await this.request<unknown>(method, path, body, signal);
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw new ClientError(
        EXIT.server,
        'unexpected_answer',
        `paneward at ${this.url} answered ${method} ${path} with something else: ${describeZodError(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  // ---- the operations, each by its contract (src/schemas/operations) -------------------------

  /** One operation: its route and the answer's check, both from its contract. */
  private async op<K extends OperationName>(
    name: K,
    params: { id?: string; turnId?: string },
    extra: { query?: URLSearchParams; body?: unknown } = {},
  ): Promise<z.output<Operations[K]['output']>> {
    const { OPERATIONS } = await contracts();
    const contract = OPERATIONS[name];
    const path = contract.http.path
      .replace('{id}', encodeURIComponent(params.id ?? ''))
      .replace('{turnId}', encodeURIComponent(params.turnId ?? ''));
    const query = extra.query && [...extra.query].length > 0 ? `?${extra.query.toString()}` : '';
    const method = contract.http.method.toUpperCase();
    return this.call(contract.output, method, `${path}${query}`, extra.body) as Promise<
      z.output<Operations[K]['output']>
    >;
  }

  async list(): Promise<TerminalView[]> {
    return (await this.op('list', {})).terminals;
  }

  async get(id: string): Promise<TerminalView> {
    return this.op('state', { id });
  }

  async attach(body: z.input<typeof AttachBody>): Promise<TerminalView> {
    // Answered with the terminal's whole view (the contract's own answer is its part of it).
    const { TerminalView, COMMANDS } = await contracts();
    return this.call(TerminalView, 'POST', COMMANDS.attach.http.path, body);
  }

  /**
   * Starts an agent CLI in a new tmux window and attaches it (`POST /v1/terminals {spawn}`):
   * answered once it is ready, or blocked on a first-run dialog.
   */
  async spawn(request: SpawnRequest): Promise<SpawnView> {
    const { SpawnView, spawn } = await contracts();
    return this.call(SpawnView, 'POST', spawn.http.path, { spawn: request });
  }

  /**
   * Ends a terminal's CLI with its own exit command, then closes its window
   * (`DELETE /v1/terminals/{id}?stop=true`): `stop`'s other fields go as the query.
   */
  async stop(id: string, options: Omit<StopInput, 'id'> = {}): Promise<StopAnswer> {
    const q = new URLSearchParams({ stop: 'true' });
    for (const [k, v] of Object.entries(options)) if (v !== undefined) q.set(k, String(v));
    return this.op('stop', { id }, { query: q });
  }

  async input(id: string, body: z.input<typeof InputBody>): Promise<{ turnId: string }> {
    return this.op('input', { id }, { body });
  }

  /** Waits for a turn `input` started: `timeout` is a result, not an error. */
  async waitTurn(
    id: string,
    turnId: string,
    timeoutSeconds: number,
    signal?: AbortSignal,
  ): Promise<TurnResponse> {
    // The HTTP face of `wait`: a wait that runs out answers `timeout` as a result.
    const { TurnResponse, COMMANDS } = await contracts();
    const path = COMMANDS.wait.http.path
      .replace('{id}', encodeURIComponent(id))
      .replace('{turnId}', encodeURIComponent(turnId));
    const query = `?timeoutSeconds=${timeoutSeconds}`;
    return this.call(TurnResponse, 'GET', `${path}${query}`, undefined, signal);
  }

  async screen(id: string): Promise<z.output<typeof ScreenContract>> {
    // The HTTP face of `screen`: `text: null` before the first capture.
    const { Screen, COMMANDS } = await contracts();
    const path = COMMANDS.screen.http.path.replace('{id}', encodeURIComponent(id));
    return this.call(Screen, 'GET', path);
  }

  async history(id: string, limit: string): Promise<z.output<typeof HistoryContract>> {
    return this.op('history', { id }, { query: new URLSearchParams({ limit }) });
  }

  /**
   * Opens the record stream (`events`, or one terminal's: `terminalEvents`) from after
   * `lastEventId`; the caller reads the Server-Sent Events from the response's body. A
   * connection that could not be made is `unreachable`, an error answer its exit code.
   */
  async eventStream(
    terminalId: string | undefined,
    lastEventId: number,
    signal: AbortSignal,
  ): Promise<Response> {
    const { OPERATIONS } = await contracts();
    const path =
      terminalId === undefined
        ? OPERATIONS.events.http.path
        : OPERATIONS.terminalEvents.http.path.replace('{id}', encodeURIComponent(terminalId));
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        headers: this.headers({
          accept: 'text/event-stream',
          'last-event-id': String(lastEventId),
        }),
        signal,
      });
    } catch (error) {
      throw new ClientError(
        EXIT.unreachable,
        'unreachable',
        `cannot reach paneward at ${this.url}: ${causeOf(error)}`,
      );
    }
    if (!res.ok || !res.body) throw answerError(res.status, await res.json().catch(() => null));
    return res;
  }

  /** Answers the question on a terminal's screen (`POST …/answer`). */
  async answer(
    id: string,
    body: { questionId: string; choice: string; via?: 'cli' | 'dashboard' | 'http' },
  ): Promise<{ questionId: string; kind: string; choice: string; closed: true }> {
    return this.op('answer', { id }, { body });
  }

  async act(
    name: 'interrupt' | 'resume' | 'detach',
    id: string,
  ): Promise<z.output<typeof Accepted>> {
    return this.op(name, { id });
  }
}

/**
 * Which method of the client runs each operation; an operation missing here says in its
 * contract why the CLI does not serve it (`notServed.cli`).
 */
export const CLIENT_CALLS: { readonly [K in OperationName]?: keyof ApiClient } = {
  list: 'list',
  state: 'get',
  history: 'history',
  events: 'eventStream',
  terminalEvents: 'eventStream',
  attach: 'attach',
  spawn: 'spawn',
  stop: 'stop',
  input: 'input',
  wait: 'waitTurn',
  screen: 'screen',
  answer: 'answer',
  interrupt: 'act',
  resume: 'act',
  detach: 'act',
};

/** The error a server answered (its JSON body, if any), with the exit code it means. */
function answerError(status: number, data: unknown): ClientError {
  const e = (data as { error?: { code?: string; message?: string; details?: unknown } } | null)
    ?.error;
  return new ClientError(
    exitFor(status, e?.code ?? ''),
    e?.code ?? `http_${status}`,
    e?.message ?? `HTTP ${status}`,
    e?.details,
  );
}

/** An error answer, with the exit code it means. */
export class ClientError extends Error {
  constructor(
    readonly exitCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** The system error code of a failed fetch (the first of several addresses tried). */
function codeOf(error: unknown): string {
  const c = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } }).cause;
  const message = (c as { message?: string } | undefined)?.message;
  // fetch refuses some ports (9, 25, …) before it connects.
  if (message === 'bad port') return 'BAD_PORT';
  return c?.code ?? c?.errors?.[0]?.code ?? '';
}

export function causeOf(error: unknown): string {
  const c = (error as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (error instanceof Error ? error.message : String(error));
}
