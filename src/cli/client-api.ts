import type { z } from 'zod';
import { PanewardError } from '../errors.js';
import { readTokenFile } from '../internal/token-file.js';
import { describeZodError } from '../internal/zod-errors.js';
import type {
  Accepted,
  AttachBody,
  History as HistoryContract,
  InputBody,
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
    if (!res.ok) {
      const e = (data as { error?: { code?: string; message?: string; details?: unknown } } | null)
        ?.error;
      throw new ClientError(
        exitFor(res.status, e?.code ?? ''),
        e?.code ?? `http_${res.status}`,
        e?.message ?? `HTTP ${res.status}`,
        e?.details,
      );
    }
    return data as T;
  }

  /** One request whose answer is checked against the operation's contract. */
  async call<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const data = await this.request<unknown>(method, path, body);
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

  async list(): Promise<TerminalView[]> {
    const { TerminalList } = await contracts();
    return (await this.call(TerminalList, 'GET', '/v1/terminals')).terminals;
  }

  async get(id: string): Promise<TerminalView> {
    const { TerminalView } = await contracts();
    return this.call(TerminalView, 'GET', terminalPath(id));
  }

  async attach(body: z.input<typeof AttachBody>): Promise<TerminalView> {
    const { TerminalView } = await contracts();
    return this.call(TerminalView, 'POST', '/v1/terminals', body);
  }

  /**
   * Starts an agent CLI in a new tmux window and attaches it (`POST /v1/terminals {spawn}`):
   * answered once it is ready, or blocked on a first-run dialog.
   */
  async spawn(request: SpawnRequest): Promise<SpawnView> {
    const { SpawnView } = await contracts();
    return this.call(SpawnView, 'POST', '/v1/terminals', { spawn: request });
  }

  /**
   * Ends a terminal's CLI with its own exit command, then closes its window
   * (`DELETE /v1/terminals/{id}?stop=true`).
   */
  async stop(id: string, options: Omit<StopInput, 'id'> = {}): Promise<StopAnswer> {
    const { StopAnswer } = await contracts();
    const q = new URLSearchParams({ stop: 'true' });
    if (options.force !== undefined) q.set('force', String(options.force));
    if (options.removeWorktree !== undefined)
      q.set('removeWorktree', String(options.removeWorktree));
    if (options.timeoutSeconds !== undefined)
      q.set('timeoutSeconds', String(options.timeoutSeconds));
    return this.call(StopAnswer, 'DELETE', `${terminalPath(id)}?${q.toString()}`);
  }

  async input(id: string, body: z.input<typeof InputBody>): Promise<{ turnId: string }> {
    const { COMMANDS } = await contracts();
    return this.call(COMMANDS.input.output, 'POST', `${terminalPath(id)}/input`, body);
  }

  /** Waits for a turn `input` started: `timeout` is a result, not an error. */
  async waitTurn(id: string, turnId: string, timeoutSeconds: number): Promise<TurnResponse> {
    const { TurnResponse } = await contracts();
    const path = `${terminalPath(id)}/turns/${encodeURIComponent(turnId)}`;
    return this.call(TurnResponse, 'GET', `${path}?timeoutSeconds=${timeoutSeconds}`);
  }

  async screen(id: string): Promise<z.output<typeof ScreenContract>> {
    const { Screen } = await contracts();
    return this.call(Screen, 'GET', `${terminalPath(id)}/screen`);
  }

  async history(id: string, limit: string): Promise<z.output<typeof HistoryContract>> {
    const { History } = await contracts();
    const query = `?limit=${encodeURIComponent(limit)}`;
    return this.call(History, 'GET', `${terminalPath(id)}/history${query}`);
  }

  /** Answers the question on a terminal's screen (`POST …/answer`). */
  async answer(
    id: string,
    body: { questionId: string; choice: string; via: 'cli' | 'dashboard' | 'http' },
  ): Promise<{ questionId: string; kind: string; choice: string; closed: true }> {
    const { AnswerDone } = await contracts();
    return this.call(AnswerDone, 'POST', `${terminalPath(id)}/answer`, body);
  }

  async act(
    name: 'interrupt' | 'resume' | 'detach',
    id: string,
  ): Promise<z.output<typeof Accepted>> {
    const { COMMANDS } = await contracts();
    if (name === 'detach') return this.call(COMMANDS.detach.output, 'DELETE', terminalPath(id));
    return this.call(COMMANDS[name].output, 'POST', `${terminalPath(id)}/${name}`);
  }
}

const terminalPath = (id: string) => `/v1/terminals/${encodeURIComponent(id)}`;

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
