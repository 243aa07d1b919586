import { z } from 'zod';
import { isPanewardError, PanewardError } from '../errors.js';
import type {
  Screen,
  TerminalView,
  TurnResponse as TurnResponseType,
} from '../schemas/operations/index.js';
import { endedEarlier, waitOutcome } from '../service/commands.js';
import { paneNames } from '../observe/pane-names.js';
import {
  isLoopback,
  ResolveError,
  resolveTerminal,
  type ResolveOptions,
} from '../service/resolve.js';
import type { SpawnArgs } from './tools.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { ClientError, type ApiClient } from '../cli/client-api.js';
import { describeZodError } from '../internal/zod-errors.js';

/** What tmux calls a pane both ways, for a service on this machine (its panes are this tmux's). */
function localPanes(url: string): ResolveOptions {
  return isLoopback(url)
    ? { argName: 'terminal', paneNames: (t) => paneNames(t) }
    : { argName: 'terminal' };
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
  /** The terminal a tool argument names: a terminal id, or a pane (`service/resolve.ts`). */
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
  if (error instanceof ResolveError)
    return { code: error.code, message: error.message, details: null };
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
    const paneId = sup.paneIdOf(id);
    return { ...state, ...(paneId ? { paneId } : {}), operations: sup.operations(id) };
  };
  return {
    where,
    list: () => Promise.resolve(sup.ids().map(view)),
    resolve: (arg) =>
      resolveTerminal(arg, () => sup.ids().map(view), {
        argName: 'terminal',
        paneNames: (t) => paneNames(t, options.socket ?? {}),
      }),
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

/** A running `paneward serve` (or fleet server) over its HTTP API: the CLI's client. */
export function remoteBackend(api: ApiClient): McpBackend {
  return {
    where: `the paneward service at ${api.url}`,
    list: () => api.list(),
    resolve: (arg) => resolveTerminal(arg, () => api.list(), localPanes(api.url)),
    get: (id) => api.get(id),
    screen: (id) => api.screen(id),
    submit: async (id, text, force) => (await api.input(id, { text, force })).turnId,
    wait: (id, turnId, timeoutSeconds, signal) => api.waitTurn(id, turnId, timeoutSeconds, signal),
    interrupt: async (id) => void (await api.act('interrupt', id)),
    resume: async (id) => void (await api.act('resume', id)),
    answer: (id, questionId, choice) => api.answer(id, { questionId, choice }),
    spawn: async (request) => {
      const { spawned, ...view } = await api.spawn(request);
      return { view: { ...view, spawned }, spawned };
    },
    stop: (id, options) => api.stop(id, options),
    close: () => Promise.resolve(),
  };
}
