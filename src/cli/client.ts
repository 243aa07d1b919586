import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { PanewardError, type PanewardErrorCode } from '../errors.js';
import type { JournalRecord } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { Operations } from '../supervisor/operations.js';
import { briefRecord } from './journal.js';
import { toolLabel } from './labels.js';
import { terminalTable } from './table.js';
import { untilStopSignal } from './signals.js';
import { DEFAULT_URL } from './defaults.js';
import { CliExit, EXIT } from './exit.js';
import { CLIENT_FIELDS, cliMessage } from './messages.js';
import { ResolveError, resolveTerminal } from './resolve.js';

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

type View = TerminalState & { operations: Operations };

export interface ClientOptions {
  url?: string;
  tokenFile?: string;
  json?: boolean;
}

export interface ClientIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Colours are used only on a terminal, and never with NO_COLOR. */
  color: boolean;
}

const defaultIo = (): ClientIo => ({
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
});

/**
 * The server's error codes → exit codes. A fleet server that cannot deliver a command because
 * the pane's host is unreachable answers like a server that cannot be reached: the command did
 * not run (a host that timed out may have run it, so that one stays a server error).
 */
export function exitFor(status: number, code: string): number {
  if (status === 400 || code === 'invalid_input') return EXIT.usage;
  if (code === 'host_unreachable') return EXIT.unreachable;
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
      ? readFileSync(o.tokenFile, 'utf8').trim()
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

function causeOf(error: unknown): string {
  const c = (error as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (error instanceof Error ? error.message : String(error));
}

function describeState(v: View): string[] {
  const op = (name: string, o: { allowed: string; reason: string }) =>
    `  ${name}: ${o.allowed} (${o.reason})`;
  return [
    `${v.terminalId} ${v.target ?? ''} ${toolLabel(v.tool)}${v.toolVersion ? ` ${v.toolVersion}` : ''}`,
    `  diagnostics: ${v.diagnostics.availability}  readiness: ${v.readiness.status}  phase: ${v.turn.phase}${v.turn.current ? ` ${v.turn.current.id} (${v.turn.current.source})` : ''}`,
    `  last turn: ${v.lastTurn.result}${v.lastTurn.turnId ? ` ${v.lastTurn.turnId} (${v.lastTurn.source})` : ''}  session: ${v.session.status}`,
    op('send input', v.operations.sendInput),
    op('interrupt', v.operations.interrupt),
    op('resume', v.operations.resume),
  ];
}

/** Runs one client command: prints, and throws CliExit for a non-zero exit. */
async function run(
  io: ClientIo,
  o: ClientOptions,
  body: (api: ApiClient) => Promise<number>,
): Promise<void> {
  const api = new ApiClient(o, io.env);
  let code: number;
  try {
    code = await body(api);
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    if (o.json)
      io.out(
        JSON.stringify({
          error: { code: error.code, message: error.message, details: error.details ?? null },
        }),
      );
    io.err(`paneward: ${cliMessage(error.message, CLIENT_FIELDS)}`);
    code = error.exitCode;
  }
  if (code !== EXIT.ok) throw new CliExit(code);
}

/** `paneward events`: follows the record stream over SSE, resuming by id after a cut. */
async function followEvents(
  api: ApiClient,
  io: ClientIo,
  o: ClientOptions & { since?: number; terminal?: string },
  signal: AbortSignal,
): Promise<void> {
  let last = o.since ?? 0;
  const path = o.terminal ? `/v1/terminals/${encodeURIComponent(o.terminal)}/events` : '/v1/events';
  while (!signal.aborted) {
    let res: Response;
    try {
      res = await fetch(`${api.url}${path}`, {
        headers: api.headers({ accept: 'text/event-stream', 'last-event-id': String(last) }),
        signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw new ClientError(
        EXIT.unreachable,
        'unreachable',
        `cannot reach paneward at ${api.url}: ${causeOf(error)}`,
      );
    }
    if (!res.ok || !res.body) {
      const e = (
        (await res.json().catch(() => null)) as {
          error?: { code?: string; message?: string };
        } | null
      )?.error;
      throw new ClientError(
        exitFor(res.status, e?.code ?? ''),
        e?.code ?? 'http',
        e?.message ?? `HTTP ${res.status}`,
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
          );
          if (fields.event === 'heartbeat' || fields.data === undefined) continue;
          if (fields.event === 'overflow') break;
          const record = JSON.parse(fields.data) as JournalRecord;
          last = record.seq;
          io.out(o.json ? JSON.stringify(record) : briefRecord(record));
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      void error;
    }
    // Cut off (fell behind, or the server restarted): resume from the last record seen.
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** What a terminal argument accepts. */
const TERMINAL_ARG = 'terminal id, pane id %N, or session:window.pane';

/** The terminal id an argument names: a pane id or a target is looked up in the list. */
async function terminalIdOf(api: ApiClient, arg: string, argName = '<terminal>'): Promise<string> {
  try {
    return await resolveTerminal(api, arg, argName);
  } catch (error) {
    if (error instanceof ResolveError) {
      throw new ClientError(error.exitCode, error.code, error.message);
    }
    throw error;
  }
}

/** The path of the terminal an argument names. */
const terminalPath = async (api: ApiClient, arg: string): Promise<string> =>
  `/v1/terminals/${encodeURIComponent(await terminalIdOf(api, arg))}`;

function common(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (PANEWARD_URL, default ${DEFAULT_URL})`)
    .option('--token-file <file>', 'bearer token (else PANEWARD_TOKEN)')
    .option('--json', 'print JSON');
}

const wholeSeconds = (value: string, field: string, max = 86_400): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > max) {
    throw new PanewardError(
      'invalid_input',
      `field \`${field}\`: must be a positive number of seconds, at most ${max}`,
    );
  }
  return n;
};

/** The client commands of a running `paneward serve`. */
export function registerClient(program: Command, io: () => ClientIo = defaultIo): void {
  common(program.command('ls').description('List the terminals of a running server.')).action(
    (o: ClientOptions) =>
      run(io(), o, async (api) => {
        const { terminals } = await api.request<{ terminals: View[] }>('GET', '/v1/terminals');
        if (o.json) io().out(JSON.stringify(terminals));
        else for (const l of terminalTable(terminals, Date.now() / 1000, io().color)) io().out(l);
        return EXIT.ok;
      }),
  );

  common(
    program
      .command('state')
      .description("One terminal's state and what it accepts now.")
      .argument('<terminal>', TERMINAL_ARG),
  ).action((id: string, o: ClientOptions) =>
    run(io(), o, async (api) => {
      const v = await api.request<View>('GET', await terminalPath(api, id));
      for (const l of o.json ? [JSON.stringify(v)] : describeState(v)) io().out(l);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('attach')
      .description('Attach a pane (its tool detected unless --tool).')
      .argument('<target>', 'session:window.pane or %N')
      .option('--tool <id>', 'profile id')
      .option('--id <id>', 'terminal id')
      .option('--host <name>', 'on a fleet server: the host whose pane it is'),
  ).action((target: string, o: ClientOptions & { tool?: string; id?: string; host?: string }) =>
    run(io(), o, async (api) => {
      const v = await api.request<View>('POST', '/v1/terminals', {
        target,
        ...(o.tool ? { tool: o.tool } : {}),
        ...(o.id ? { id: o.id } : {}),
        ...(o.host ? { host: o.host } : {}),
      });
      io().out(o.json ? JSON.stringify(v) : `${v.terminalId} ${v.target} ${v.tool}`);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('send')
      .description(
        'Type a prompt into a terminal; with --wait, wait for that turn and exit by its outcome.',
      )
      .argument('<terminal>', TERMINAL_ARG)
      .argument('<text>', 'the prompt')
      .option(
        '--wait',
        'print the turn id at once, wait for the turn to end, print "ID OUTCOME" (exit 0 only for success)',
      )
      .option('--timeout <seconds>', 'with --wait: give up after this long (at most 86400)', '600')
      .option('--force', 'type it even when the terminal is not ready'),
  ).action(
    (
      id: string,
      text: string,
      o: ClientOptions & { wait?: boolean; timeout: string; force?: boolean },
    ) =>
      run(io(), o, async (api) => {
        const path = await terminalPath(api, id);
        if (!o.wait) {
          const r = await api.request<{ turnId: string }>('POST', `${path}/input`, {
            text,
            force: o.force ?? false,
          });
          io().out(o.json ? JSON.stringify(r) : r.turnId);
          return EXIT.ok;
        }
        const timeoutSeconds = wholeSeconds(o.timeout, 'timeout');
        // The turn id first, as soon as it is known: a script that loses the rest still knows
        // which turn it started, and does not type the prompt twice.
        const { turnId } = await api.request<{ turnId: string }>('POST', `${path}/input`, {
          text,
          force: o.force ?? false,
        });
        io().out(o.json ? JSON.stringify({ turnId }) : turnId);
        let r: { turnId: string; result: string; lastTurn: TerminalState['lastTurn'] };
        try {
          r = await api.request(
            'GET',
            `${path}/turns/${encodeURIComponent(turnId)}?timeoutSeconds=${timeoutSeconds}`,
          );
        } catch (error) {
          if (error instanceof ClientError && error.exitCode === EXIT.unreachable) {
            throw new ClientError(
              EXIT.mayHaveRun,
              'connection_lost',
              `${turnId} was typed, then the connection to paneward was lost while waiting for it (${error.message}); follow it with: paneward state ${id}`,
            );
          }
          throw error;
        }
        const outcome = r.lastTurn.turnId === r.turnId ? r.lastTurn.result : 'none';
        io().out(
          o.json
            ? JSON.stringify(r)
            : `${r.turnId} ${r.result === 'timeout' ? 'timeout' : outcome}`,
        );
        if (r.result === 'timeout') return EXIT.timeout;
        return outcome === 'success' ? EXIT.ok : EXIT.turnFailed;
      }),
  );

  common(
    program
      .command('screen')
      .description("The pane's latest screen as paneward captured it.")
      .argument('<terminal>', TERMINAL_ARG),
  ).action((id: string, o: ClientOptions) =>
    run(io(), o, async (api) => {
      const s = await api.request<{ text: string | null; t: number | null }>(
        'GET',
        `${await terminalPath(api, id)}/screen`,
      );
      if (o.json) io().out(JSON.stringify(s));
      else if (s.text === null) io().err('paneward: no screen captured yet');
      else io().out(s.text);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('history')
      .description("A terminal's latest records (state changes, turns, anomalies), oldest first.")
      .argument('<terminal>', TERMINAL_ARG)
      .option('--limit <n>', 'at most this many records (1 to 2000)', '100'),
  ).action((id: string, o: ClientOptions & { limit: string }) =>
    run(io(), o, async (api) => {
      const { records } = await api.request<{ records: JournalRecord[] }>(
        'GET',
        `${await terminalPath(api, id)}/history?limit=${encodeURIComponent(o.limit)}`,
      );
      for (const r of records) io().out(o.json ? JSON.stringify(r) : briefRecord(r));
      return EXIT.ok;
    }),
  );

  for (const [name, method, suffix, what] of [
    ['interrupt', 'POST', '/interrupt', "Send the agent's interrupt keys."],
    ['resume', 'POST', '/resume', 'Resume a session the watchdog blocked.'],
    ['detach', 'DELETE', '', 'Stop supervising a terminal.'],
  ] as const) {
    common(program.command(name).description(what).argument('<terminal>', TERMINAL_ARG)).action(
      (id: string, o: ClientOptions) =>
        run(io(), o, async (api) => {
          await api.request(
            'POST' === method ? 'POST' : 'DELETE',
            `${await terminalPath(api, id)}${suffix}`,
          );
          if (o.json) io().out(JSON.stringify({ ok: true }));
          return EXIT.ok;
        }),
    );
  }

  common(
    program
      .command('events')
      .description('Follow the record stream of a running server (resumes by id after a cut).')
      .option('--since <seq>', 'start after this record seq')
      .option('--terminal <terminal>', `only this terminal (${TERMINAL_ARG})`),
  ).action((o: ClientOptions & { since?: string; terminal?: string }) =>
    run(io(), o, async (api) => {
      const since = o.since === undefined ? 0 : Number(o.since);
      if (!Number.isInteger(since) || since < 0) {
        throw new ClientError(
          EXIT.usage,
          'invalid_input',
          'field `since`: must be a record seq (a whole number)',
        );
      }
      const stop = new AbortController();
      const signals = untilStopSignal();
      void signals.stopped.then(() => stop.abort());
      const terminal =
        o.terminal === undefined ? undefined : await terminalIdOf(api, o.terminal, '--terminal');
      try {
        await followEvents(api, io(), { ...o, since, terminal }, stop.signal);
      } finally {
        signals.release();
      }
      return EXIT.ok;
    }),
  );
}

export type { PanewardErrorCode };
