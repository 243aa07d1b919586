import { execFile } from 'node:child_process';
import { splitTarget } from '../schemas/target.js';
import { tmuxArgv } from './tmux-argv.js';
import { tmuxArgs, tmuxEnv } from './tmux-locale.js';

/** The same pane as tmux names it both ways: its id `%N` and `session:window.pane` by indexes. */
export interface PaneNames {
  paneId: string;
  target: string;
}

/** Which tmux server to ask: a socket name (`-L`), a path (`-S`), or neither (the default one). */
export interface TmuxSocket {
  socketName?: string;
  socketPath?: string;
}

/**
 * Asks tmux what pane a target names, both ways; null when tmux cannot say (no server, no such
 * pane, no tmux). Without a socket it asks the server `$TMUX` names, else the default one.
 *
 * tmux answers a target it cannot find with another pane (a session's current one, a session
 * whose name merely begins so): the answer counts only when it is the pane asked for, by the
 * same session name, window index or name, and pane index, or the same pane id.
 */
export function paneNames(target: string, socket: TmuxSocket = {}): Promise<PaneNames | null> {
  const server = socket.socketPath
    ? ['-S', socket.socketPath]
    : socket.socketName
      ? ['-L', socket.socketName]
      : [];
  const format = '#{pane_id}\t#{session_name}\t#{window_index}\t#{window_name}\t#{pane_index}';
  const args = tmuxArgs([...server, ...tmuxArgv(['display-message', '-p', '-t', target, format])]);
  return new Promise((resolve) => {
    execFile('tmux', args, { timeout: 2000, env: tmuxEnv() }, (error, stdout) => {
      if (error) return resolve(null);
      const [paneId, session, windowIndex, windowName, paneIndex] = stdout
        .replace(/\n$/, '')
        .split('\t');
      if (!paneId?.startsWith('%') || !session || !windowIndex || paneIndex === undefined) {
        return resolve(null);
      }
      const asked = splitTarget(target);
      const same =
        'paneId' in asked
          ? asked.paneId === paneId
          : asked.session === session &&
            (asked.window === windowIndex || asked.window === windowName) &&
            String(asked.pane) === paneIndex;
      resolve(same ? { paneId, target: `${session}:${windowIndex}.${paneIndex}` } : null);
    });
  });
}
