import { tmuxArgv } from '../observe/tmux-argv.js';
import { execFile } from 'node:child_process';
import { Target } from '../schemas/target.js';
import { tmuxArgs, tmuxEnv } from '../observe/tmux-locale.js';
import { EXIT } from './exit.js';

/** A terminal as the list of a running server gives it (what resolving needs of it). */
export interface Listed {
  terminalId: string;
  target: string | null;
  host?: string;
}

/** The client's way to the server's list, and to the error the commands print. */
export interface ResolveApi {
  readonly url: string;
  request<T>(method: string, path: string): Promise<T>;
}

/** Why a terminal argument names no terminal, or several: exit 5 or 2, the message says which. */
export class ResolveError extends Error {
  constructor(
    readonly exitCode: number,
    readonly code: 'not_found' | 'ambiguous',
    message: string,
  ) {
    super(message);
  }
}

/** The same pane as tmux names it both ways: its id `%N` and `session:window.pane` by indexes. */
export interface PaneNames {
  paneId: string;
  target: string;
}

/**
 * Asks the local tmux (the server `$TMUX` names, else the default one) what pane a target
 * names; null when tmux cannot say (no server, no such pane, no tmux).
 */
export function localPane(target: string): Promise<PaneNames | null> {
  return new Promise((resolve) => {
    execFile(
      'tmux',
      tmuxArgs(
        tmuxArgv([
          'display-message',
          '-p',
          '-t',
          target,
          '#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}',
        ]),
      ),
      { timeout: 2000, env: tmuxEnv() },
      (error, stdout) => {
        if (error) return resolve(null);
        const [paneId, indexTarget] = stdout.trim().split('\t');
        resolve(paneId?.startsWith('%') && indexTarget ? { paneId, target: indexTarget } : null);
      },
    );
  });
}

/** Whether a server URL is this machine's (its panes are then the local tmux's). */
function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}

/**
 * The terminal id a command-line argument names. A terminal id is taken as it is (the server
 * says when there is none); a pane id `%N` or a target `session:window.pane` is looked up in
 * the server's list, first as written, then, for a server on this machine, as the local tmux
 * names the same pane the other way (`%3` for a terminal attached as `work:1.0`, and back).
 * No terminal, or several (a fleet has a `%3` on every host), is an error naming the argument.
 */
export async function resolveTerminal(
  api: ResolveApi,
  arg: string,
  argName = '<terminal>',
  panes: (target: string) => Promise<PaneNames | null> = localPane,
): Promise<string> {
  if (!Target.safeParse(arg).success) return arg;
  const { terminals } = await api.request<{ terminals: Listed[] }>('GET', '/v1/terminals');
  let found = terminals.filter((t) => t.target === arg);
  if (found.length === 0 && isLoopback(api.url)) {
    const names = await panes(arg);
    if (names) {
      found = terminals.filter(
        (t) => t.target !== null && (t.target === names.paneId || t.target === names.target),
      );
    }
  }
  if (found.length === 1) return found[0]!.terminalId;
  if (found.length === 0) {
    throw new ResolveError(
      EXIT.notFound,
      'not_found',
      `${argName} ${arg}: no terminal is attached to that pane (paneward ls lists them; paneward attach ${arg} attaches it)`,
    );
  }
  const which = found
    .map((t) => (t.host ? `${t.terminalId} (host ${t.host})` : t.terminalId))
    .join(', ');
  throw new ResolveError(
    EXIT.usage,
    'ambiguous',
    `${argName} ${arg}: names ${found.length} terminals (${which}); name one by its terminal id`,
  );
}
