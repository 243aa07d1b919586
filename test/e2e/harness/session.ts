import { rm } from 'node:fs/promises';
import { execa } from 'execa';
import { PanewardError } from '../../../src/errors.js';
import { createExecaTransport } from '../../../src/observe/execa-transport.js';
import { probePane } from '../../../src/observe/probe.js';
import { descendantsOf, findProcesses, readProcessTable } from '../../../src/observe/process.js';
import type { TmuxTransport } from '../../../src/observe/transport.js';

/** Options for {@link startAgentSession}. */
export interface AgentSessionOptions {
  /** tmux `-L` socket; default a fresh `pw-e2e-<pid>-<n>`. */
  socketName?: string;
  /** Default `pw`. */
  sessionName?: string;
  cols?: number;
  rows?: number;
  cwd: string;
  /** The command's whole environment; PATH and TERM get defaults when absent. */
  env: Record<string, string>;
  /** Program and arguments, executed directly (no shell). */
  command: string[];
  /** Keep the pane (and its last screen) when the command exits; default false. */
  remainOnExit?: boolean;
  /** Per-call tmux timeout in ms; default 5000. */
  timeoutMs?: number;
}

/** A tmux server with one session running one command, for end-to-end tests. */
export interface AgentSession {
  socketName: string;
  /** `session:window.pane` of the command's pane. */
  target: string;
  transport: TmuxTransport;
  panePid(): Promise<number>;
  /** Types text literally (`send-keys -l`): key names in it are not interpreted. */
  sendText(text: string): Promise<void>;
  /** Sends tmux key names (`Enter`, `C-c`, `Escape`, ...). */
  sendKeys(...keys: string[]): Promise<void>;
  /** The screen as `capture-pane -p` prints it, without the final newline. */
  capture(): Promise<string>;
  /** Polls the screen until it matches; resolves with that screen. */
  waitForText(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Polls until a process with one of these names runs under the pane; resolves with its pids. */
  waitForProcess(names: readonly string[], timeoutMs?: number): Promise<number[]>;
  killSession(): Promise<void>;
  /** Kills the tmux server on this socket. */
  close(): Promise<void>;
}

let counter = 0;
const POLL_MS = 50;

/**
 * A socket name no other test run uses. `PANEWARD_TEST_SOCKET_PREFIX` goes in front of it, so
 * people sharing a machine can tell their tmux servers apart.
 */
export function uniqueSocketName(prefix = 'pw-e2e'): string {
  counter += 1;
  return `${process.env.PANEWARD_TEST_SOCKET_PREFIX ?? ''}${prefix}-${process.pid}-${counter}`;
}

/**
 * Starts a dedicated tmux server (`-f /dev/null`, no user config) with a detached session of
 * `cols`×`rows` whose single pane runs `command` under `env -i`: the command sees `env` only.
 */
export async function startAgentSession(options: AgentSessionOptions): Promise<AgentSession> {
  const socketName = options.socketName ?? uniqueSocketName();
  const sessionName = options.sessionName ?? 'pw';
  const cols = options.cols ?? 120;
  const rows = options.rows ?? 40;
  const timeoutMs = options.timeoutMs ?? 5000;
  if (options.command.length === 0) throw new PanewardError('invalid_input', 'command is empty');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    TERM: 'tmux-256color',
    ...options.env,
  };
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);

  // One invocation, so remain-on-exit is set before the command can exit.
  const start = await execa(
    'tmux',
    [
      '-L',
      socketName,
      '-f',
      '/dev/null',
      'start-server',
      ';',
      'set-option',
      '-g',
      'remain-on-exit',
      options.remainOnExit ? 'on' : 'off',
      ';',
      'new-session',
      '-d',
      '-P',
      '-F',
      '#{session_name}:#{window_index}.#{pane_index}\t#{socket_path}\t#{pid}',
      '-s',
      sessionName,
      '-x',
      String(cols),
      '-y',
      String(rows),
      '-c',
      options.cwd,
      '--',
      'env',
      '-i',
      ...envArgs,
      ...options.command,
    ],
    { timeout: timeoutMs, stdin: 'ignore', env: { TMUX: '' } },
  );
  const [target = '', socketPath = '', serverPid = ''] = start.stdout.trim().split('\t');
  /** The tmux server's own process: stopped by pid if it does not end on `kill-server`. */
  const server = Number(serverPid);
  const transport = createExecaTransport({ socketName, timeoutMs });

  const capture = async (): Promise<string> => {
    const out = await transport.run(['capture-pane', '-p', '-t', target]);
    return out.endsWith('\n') ? out.slice(0, -1) : out;
  };
  // Through the probe: `display-message -t` alone silently falls back to another pane.
  const panePid = async (): Promise<number> => {
    const probe = await probePane(transport, target, { processNames: [] });
    if (!probe.pane) {
      throw new PanewardError(
        probe.transport === 'tmux_missing' ? 'tmux_missing' : 'tmux_failed',
        `no pane ${target}`,
        {
          details: probe.error,
        },
      );
    }
    return probe.pane.pid;
  };

  const until = async <T>(
    what: string,
    timeout: number,
    attempt: () => Promise<T | undefined>,
    describe: () => Promise<string>,
  ): Promise<T> => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await attempt();
      if (value !== undefined) return value;
      if (Date.now() >= deadline) {
        throw new PanewardError('timeout', `${what} not seen within ${timeout} ms`, {
          details: { last: await describe().catch((e: unknown) => String(e)) },
        });
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  return {
    socketName,
    target,
    transport,
    panePid,
    async sendText(text) {
      await transport.run(['send-keys', '-t', target, '-l', '--', text]);
    },
    async sendKeys(...keys) {
      if (keys.length > 0) await transport.run(['send-keys', '-t', target, ...keys]);
    },
    capture,
    waitForText(re, timeout = 10_000) {
      return until(
        `text ${re}`,
        timeout,
        async () => {
          const screen = await capture();
          return re.test(screen) ? screen : undefined;
        },
        capture,
      );
    },
    waitForProcess(names, timeout = 10_000) {
      return until(
        `process ${names.join('|')}`,
        timeout,
        async () => {
          const { pids } = await findProcesses(await panePid(), names);
          return pids.length > 0 ? pids : undefined;
        },
        capture,
      );
    },
    async killSession() {
      await transport.run(['kill-session', '-t', sessionName]);
    },
    async close() {
      // Agent CLIs can outlive their tmux server (codex leaves an app-server daemon behind), so
      // the processes under every pane are stopped too, by pid.
      const pids: number[] = await paneTreePids(transport).catch((): number[] => []);
      try {
        await transport.run(['kill-server']);
      } catch {
        // Already gone, or too stuck to answer (a control client killed mid-read can leave it
        // so): its own process is stopped below.
      } finally {
        if (Number.isInteger(server) && server > 1) pids.push(server);
        await transport.close();
        // tmux leaves its socket file behind when the server exits.
        if (socketPath) await rm(socketPath, { force: true });
        await stopProcesses(pids);
      }
    },
  };
}

async function paneTreePids(transport: TmuxTransport): Promise<number[]> {
  const out = await transport.run(['list-panes', '-a', '-F', '#{pane_pid}']);
  const table = await readProcessTable();
  const roots = out.split('\n').filter(Boolean).map(Number);
  return roots.flatMap((pid) => descendantsOf(table, pid)).filter((pid) => pid !== process.pid);
}

/** SIGTERM, then SIGKILL what is still there after a grace period. */
async function stopProcesses(pids: readonly number[], graceMs = 1000): Promise<void> {
  const signal = (pid: number, sig: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(pid, sig);
      return true;
    } catch {
      return false; // already gone
    }
  };
  let alive = pids.filter((pid) => signal(pid, 'SIGTERM'));
  const deadline = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    alive = alive.filter((pid) => signal(pid, 0));
  }
  for (const pid of alive) signal(pid, 'SIGKILL');
}
