import { tmuxArgv } from '../observe/tmux-argv.js';
import { z } from 'zod';
import { isPanewardError, PanewardError } from '../errors.js';
import {
  TerminalView,
  TurnResponse,
  type Screen,
  type TurnResponse as TurnResponseType,
} from '../schemas/operations/index.js';
import { Target } from '../schemas/target.js';
import { endedEarlier, waitOutcome } from '../service/commands.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { ClientError, type ApiClient } from '../cli/client-api.js';
import { describeZodError } from '../internal/zod-errors.js';
import { localPane, type PaneNames } from '../cli/resolve.js';
import { tmuxArgs, tmuxEnv } from '../observe/tmux-locale.js';
import { execa } from 'execa';

/** A service on this machine: its panes are the local tmux's (as the CLI client looks them up). */
function remotePanes(url: string): ((t: string) => Promise<PaneNames | null>) | undefined {
  const host = new URL(url).hostname;
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host) ? localPane : undefined;
}

/**
 * What the MCP tools act on: a running `paneward serve` over HTTP, or a supervisor in the same
 * process. Both answer with the HTTP API's shapes (`TerminalView`, `TurnResponse`) and refuse
 * with its error codes, so the tools read the same verdicts and reasons either way.
 */
export interface McpBackend {
  /** What the tools talk to, in a few words (for errors that say where). */
  readonly where: string;
  list(): Promise<TerminalView[]>;
  /** The terminal a tool argument names (a terminal id, or the pane it was attached as). */
  resolve(arg: string): Promise<string>;
  get(id: string): Promise<TerminalView>;
  screen(id: string): Promise<z.output<typeof Screen>>;
  /** Types a prompt and submits it: the turn it started. Refused unless the gate allows it. */
  submit(id: string, text: string, force: boolean): Promise<string>;
  /** Waits for a turn to end: a wait that runs out answers `timeout`, never an error. */
  wait(
    id: string,
    turnId: string,
    timeoutSeconds: number,
    signal?: AbortSignal,
  ): Promise<TurnResponseType>;
  interrupt(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  /** Answers the question on screen: only that very dialog, by the profile's keys. */
  answer(
    id: string,
    questionId: string,
    choice: string,
  ): Promise<{ questionId: string; kind: string; choice: string }>;
  /** Starts an agent CLI in a new tmux window and attaches it: answered once it is ready. */
  spawn(request: SpawnArgs): Promise<Spawn>;
  /** Ends a terminal's CLI with its own exit command, then its window (detached too). */
  stop(id: string, options: { removeWorktree?: boolean }): Promise<Stopped>;
  close(): Promise<void>;
}

/** What the `spawn` tool hands over (the `spawn` operation's request, as far as a model sets it). */
export interface SpawnArgs {
  tool: string;
  cwd?: string;
  name?: string;
  session?: string;
  worktree?: string;
  args?: string[];
  env?: Record<string, string>;
  restart?: 'never' | 'on-failure';
  readyTimeoutSeconds?: number;
}

/** What a spawn answers: the terminal, and what was started (as the service says it). */
export interface Spawn {
  view: TerminalView;
  spawned: Record<string, unknown> | null;
}

/** What a stop answers. */
export interface Stopped {
  ended: string;
  worktreeRemoved: string | null;
}

/** What a supervisor that can start sessions offers (`spawn`, `stopTerminal`). */
interface Spawning {
  spawn?(request: SpawnArgs): Promise<{ terminalId: string; spawned?: unknown }>;
  stopTerminal?(input: { id: string; removeWorktree?: boolean }): Promise<Stopped>;
  spawnedOf?(id: string): unknown;
}

const cannotSpawn = (where: string) =>
  new PanewardError(
    'refused',
    `${where} cannot start or stop agent sessions (this paneward has no spawn)`,
  );

/** An error as the tools report it: the API's stable code, its sentence and details. */
export interface BackendFailure {
  code: string;
  message: string;
  details: unknown;
}

/** The code, sentence and details of whatever a backend threw. */
export function failureOf(error: unknown): BackendFailure {
  if (isPanewardError(error)) {
    return { code: error.code, message: error.message, details: error.details ?? null };
  }
  if (error instanceof ClientError) {
    return { code: error.code, message: error.message, details: error.details ?? null };
  }
  if (error instanceof z.ZodError) {
    return { code: 'invalid_input', message: describeZodError(error), details: error.issues };
  }
  return {
    code: 'internal',
    message: error instanceof Error ? error.message : String(error),
    details: null,
  };
}

/**
 * The terminal a tool argument names: a terminal id as it is, or a pane (`%N`,
 * `session:window.pane`) looked up among the attached terminals by the target it was attached
 * as, then (where tmux can say) by the other name tmux gives the same pane.
 */
export async function resolveTerminal(
  terminals: readonly TerminalView[],
  arg: string,
  paneNames?: (target: string) => Promise<PaneNames | null>,
): Promise<string> {
  if (!Target.safeParse(arg).success) return arg;
  if (terminals.some((t) => t.terminalId === arg)) return arg;
  let found = terminals.filter((t) => t.target === arg);
  if (found.length === 0 && paneNames) {
    const names = await paneNames(arg);
    if (names) {
      found = terminals.filter((t) => t.target === names.paneId || t.target === names.target);
    }
  }
  return found.length === 1 ? found[0]!.terminalId : arg;
}

/** What tmux on a socket calls a pane both ways; null when it cannot say. */
export async function tmuxPaneNames(
  socket: { socketName?: string; socketPath?: string },
  target: string,
): Promise<PaneNames | null> {
  const args = socket.socketPath
    ? ['-S', socket.socketPath]
    : socket.socketName
      ? ['-L', socket.socketName]
      : [];
  const r = await execa(
    'tmux',
    tmuxArgs([
      ...args,
      ...tmuxArgv([
        'display-message',
        '-p',
        '-t',
        target,
        '#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}',
      ]),
    ]),
    { reject: false, timeout: 2000, stdin: 'ignore', env: tmuxEnv(), extendEnv: false },
  );
  if (r.exitCode !== 0) return null;
  const [paneId, indexTarget] = `${r.stdout}`.trim().split('\t');
  return paneId?.startsWith('%') && indexTarget ? { paneId, target: indexTarget } : null;
}

/** The supervisor in this process: no HTTP between the tools and the panes. */
export function embeddedBackend(
  sup: Supervisor,
  where: string,
  options: {
    socket?: { socketName?: string; socketPath?: string };
    onClose?: () => Promise<void>;
  } = {},
): McpBackend {
  const view = (id: string): TerminalView => {
    const state = sup.get(id);
    return { ...state, operations: sup.operations(id) };
  };
  return {
    where,
    list: () => Promise.resolve(sup.ids().map(view)),
    resolve: (arg) =>
      resolveTerminal(sup.ids().map(view), arg, (t) => tmuxPaneNames(options.socket ?? {}, t)),
    get: (id) => Promise.resolve().then(() => view(id)),
    screen: async (id) => (await sup.screen(id)) ?? { text: null, t: null },
    submit: (id, text, force) => sup.submit(id, text, { force }),
    wait: async (id, turnId, timeoutSeconds, signal) => {
      const over = await endedEarlier(sup, id, turnId);
      if (over) return over;
      return waitOutcome(sup, id, turnId, Math.round(timeoutSeconds * 1000), signal);
    },
    interrupt: (id) => sup.interrupt(id),
    resume: (id) => sup.resume(id),
    answer: (id, questionId, choice) =>
      sup.answer(id, { questionId, choice, by: { via: 'mcp', tokenId: null } }),
    spawn: async (request) => {
      const s = sup as unknown as Spawning;
      if (typeof s.spawn !== 'function') throw cannotSpawn(where);
      const { terminalId, spawned } = await s.spawn(request);
      return { view: view(terminalId), spawned: (spawned ?? null) as Spawn['spawned'] };
    },
    stop: async (id, options) => {
      const s = sup as unknown as Spawning;
      if (typeof s.stopTerminal !== 'function') throw cannotSpawn(where);
      return s.stopTerminal({ id, ...options });
    },
    close: options.onClose ?? (() => sup.stop()),
  };
}

/** A running `paneward serve` (or fleet server) over its HTTP API. */
export function remoteBackend(api: ApiClient): McpBackend {
  const path = (id: string) => `/v1/terminals/${encodeURIComponent(id)}`;
  return {
    where: `the paneward service at ${api.url}`,
    list: () => api.list(),
    resolve: async (arg) => resolveTerminal(await api.list(), arg, remotePanes(api.url)),
    get: (id) => api.get(id),
    screen: (id) => api.screen(id),
    submit: async (id, text, force) => (await api.input(id, { text, force })).turnId,
    wait: async (id, turnId, timeoutSeconds, signal) => {
      const data = await api.request<unknown>(
        'GET',
        `${path(id)}/turns/${encodeURIComponent(turnId)}?timeoutSeconds=${timeoutSeconds}`,
        undefined,
        signal,
      );
      const parsed = TurnResponse.safeParse(data);
      if (!parsed.success) {
        throw new ClientError(
          8,
          'unexpected_answer',
          `paneward at ${api.url} answered the wait for ${turnId} with something else: ${describeZodError(parsed.error)}`,
        );
      }
      return parsed.data;
    },
    interrupt: async (id) => void (await api.act('interrupt', id)),
    resume: async (id) => void (await api.act('resume', id)),
    answer: (id, questionId, choice) =>
      api.request<{ questionId: string; kind: string; choice: string }>(
        'POST',
        `/v1/terminals/${encodeURIComponent(id)}/answer`,
        { questionId, choice },
      ),
    spawn: async (request) => {
      const data = await api.request<Record<string, unknown>>('POST', '/v1/terminals', {
        spawn: request,
      });
      const parsed = TerminalView.safeParse(data);
      if (!parsed.success) {
        throw new ClientError(
          8,
          'unexpected_answer',
          `paneward at ${api.url} answered the spawn with something else: ${describeZodError(parsed.error)}`,
        );
      }
      const spawned = data.spawned;
      return {
        view: parsed.data,
        spawned:
          typeof spawned === 'object' && spawned !== null ? (spawned as Spawn['spawned']) : null,
      };
    },
    stop: async (id, options) => {
      const q = new URLSearchParams({ stop: 'true' });
      if (options.removeWorktree !== undefined)
        q.set('removeWorktree', String(options.removeWorktree));
      const data = await api.request<Partial<Stopped> | null>(
        'DELETE',
        `${path(id)}?${q.toString()}`,
      );
      return {
        ended: String(data?.ended ?? 'unknown'),
        worktreeRemoved: data?.worktreeRemoved ?? null,
      };
    },
    close: () => Promise.resolve(),
  };
}
