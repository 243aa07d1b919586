import { formatLiteral, tmuxArgv } from '../../observe/tmux-argv.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from 'pino';
import { PanewardError } from '../../errors.js';
import { awaitExit } from '../../internal/await-exit.js';
import { packageFile } from '../../internal/package-root.js';
import { descendantsOf, readProcessTable } from '../../observe/process.js';
import { tmuxArgs, tmuxEnv } from '../../observe/tmux-locale.js';
import { getProfile } from '../../profiles/index.js';
import { RecordingHeader } from '../../schemas/recording.js';
import { createLogger, serve as startService, type RunningServer } from '../../serve.js';
import { installedAgents, startDemoModel } from './live.js';

// From the package's folder, not this module's: the build in dist/ runs the same files.
const RECORDINGS = packageFile('recordings/');
const PLAYER = packageFile('src/tooling/demo/player.mjs');

/** The panes of the demo: real screens of three CLIs, each telling a different story. */
export const DEMO_RECORDINGS = [
  { id: 'claude-asks', file: 'claude_code/permission-prompt.jsonl' },
  { id: 'claude-interrupted', file: 'claude_code/interrupted-then-success.jsonl' },
  { id: 'codex-two-turns', file: 'codex/two-turns.jsonl' },
  { id: 'gemini-error-500', file: 'gemini_cli/error-500.jsonl' },
] as const;

export interface DemoOptions {
  /** Run the installed agent CLIs against the built-in model server instead of recordings. */
  live?: boolean;
  port?: number;
  host?: string;
  /** Seconds a pane rests on its last frame before it plays again. */
  pauseSeconds?: number;
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logger?: Logger;
  /** The private tmux server's socket name (default `paneward-demo-<pid>`). */
  socketName?: string;
}

export interface RunningDemo {
  url: string;
  socketName: string;
  terminals: string[];
  serve: RunningServer;
  stop(): Promise<void>;
}

/**
 * `paneward demo`: a private tmux server whose panes play real recordings of Claude Code, Codex
 * and Gemini CLI at their recorded pace, each by a player process named like the CLI (so the
 * supervisor finds and reads it as it would the CLI), supervised and served with the
 * dashboard. Needs tmux; no agent CLI and no key. `stop()` ends the tmux server it started and
 * removes its scratch folder.
 */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const scratch = mkdtempSync(join(tmpdir(), 'paneward-demo-'));
  const socketName = options.socketName ?? `paneward-demo-${process.pid}`;
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  let tmuxStarted = false;
  const liveStops: Array<() => Promise<unknown> | void> = [];
  const cleanup = async () => {
    if (tmuxStarted) {
      const path = await runTmux(['-L', socketName, 'display-message', '-p', '#{socket_path}'], {
        reject: false,
      });
      // The panes' processes (players, or the CLIs and what they started) are ours: the ones
      // still running once the server is gone are waited for, so nothing writes into scratch
      // after it is removed.
      const panePids = await runTmux(['-L', socketName, 'list-panes', '-a', '-F', '#{pane_pid}'], {
        reject: false,
      });
      const table = await readProcessTable();
      const ours = panePids.stdout
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .flatMap((pid) => descendantsOf(table, Number(pid)));
      await runTmux(['-L', socketName, 'kill-server'], { reject: false });
      await awaitExit(ours);
      // tmux leaves its socket file behind when the server exits.
      if (path.exitCode === 0 && path.stdout.trim()) rmSync(path.stdout.trim(), { force: true });
    }
    // The CLIs and their daemons are gone once these resolve, so nothing writes into scratch
    // any more; the retries cover a file a CLI flushed on its way out.
    for (const stop of liveStops) await stop();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
  try {
    const panes = options.live
      ? await startLivePanes(socketName, scratch, (stop) => {
          tmuxStarted = true;
          liveStops.push(stop);
        })
      : await startRecordedPanes(socketName, bin, options.pauseSeconds ?? 6, () => {
          tmuxStarted = true;
        });
    const serve = await startService({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      token: null,
      logger: options.logger ?? createLogger(options.logLevel ?? 'warn'),
      supervisor: {
        options: { socketName, dataDir: join(scratch, 'data'), source: 'control' },
        discoverSeconds: null,
      },
    });
    // A server with panes (not a fleet server) always has its supervisor.
    const sup = serve.supervisor!;
    for (const p of panes) {
      await sup.attach({
        target: `${p.id}:0.0`,
        tool: p.tool,
        ...(p.toolVersion ? { toolVersion: p.toolVersion } : {}),
        id: p.id,
      });
      // A recording reads no input: a prompt sent there would be credited with its next reply.
      if (p.readsNoInput) sup.refuseInput(p.id, p.readsNoInput);
    }
    let stopping: Promise<void> | null = null;
    return {
      url: `${serve.url}/`,
      socketName,
      terminals: panes.map((p) => p.id),
      serve,
      stop: () =>
        (stopping ??= (async () => {
          await serve.stop();
          await cleanup();
        })()),
    };
  } catch (error) {
    await cleanup();
    if (error instanceof PanewardError) throw error;
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new PanewardError('tmux_missing', 'demo: tmux is not installed (not on PATH)', {
        cause: error,
      });
    }
    throw error;
  }
}

interface DemoPane {
  id: string;
  tool: string;
  toolVersion?: string;
  /** The pane reads no input: why. */
  readsNoInput?: string;
}

/** `tmux new-session` on the demo's server; `rest` (its folder, environment, command) is data. */
const tmuxNew = (
  socketName: string,
  id: string,
  cols: number,
  rows: number,
  rest: readonly string[],
) => [
  ...['-L', socketName, '-f', '/dev/null'],
  ...tmuxArgv([
    ...['new-session', '-d', '-s', formatLiteral(id)],
    ...['-x', String(cols), '-y', String(rows)],
    ...rest,
  ]),
];

/** One session per recording, its pane playing it under the CLI's process name. */
async function startRecordedPanes(
  socketName: string,
  bin: string,
  pauseSeconds: number,
  started: () => void,
): Promise<DemoPane[]> {
  const panes = DEMO_RECORDINGS.map(({ id, file }) => {
    const path = join(RECORDINGS, file);
    const header = RecordingHeader.parse(JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!));
    return { id, path, header, name: getProfile(header.tool).processNames[0]! };
  });
  // The player runs as `claude`, `codex`, `gemini`: node under the CLI's name.
  for (const name of new Set(panes.map((p) => p.name))) {
    symlinkSync(process.execPath, join(bin, name));
  }
  for (const p of panes) {
    await runTmux(
      tmuxNew(socketName, p.id, p.header.cols ?? 160, p.header.rows ?? 45, [
        ...['--', join(bin, p.name), PLAYER, p.path, String(pauseSeconds), String(process.pid)],
      ]),
    );
    started();
  }
  return panes.map((p) => ({
    id: p.id,
    tool: p.header.tool,
    readsNoInput: 'it plays a recording (run `paneward demo --live` to prompt real agents)',
    ...(p.header.toolVersion ? { toolVersion: p.header.toolVersion } : {}),
  }));
}

/** One session per installed agent CLI, run offline against the built-in model server. */
async function startLivePanes(
  socketName: string,
  scratch: string,
  started: (stop: () => Promise<unknown> | void) => void,
): Promise<DemoPane[]> {
  const model = await startDemoModel();
  started(() => model.close());
  const agents = installedAgents(scratch, model.url);
  if (agents.length === 0) {
    throw new PanewardError(
      'invalid_input',
      'demo: field `live`: no agent CLI is installed; install one with scripts/install-agent.sh ' +
        'claude_code (or codex, gemini_cli, opencode, ...), or run the demo without --live',
    );
  }
  const panes: DemoPane[] = [];
  for (const agent of agents) {
    await agent.setup?.();
    if (agent.cleanup) started(agent.cleanup);
    const env = Object.entries(agent.launch.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const id = `${agent.tool}-live`;
    await runTmux(
      tmuxNew(socketName, id, 160, 45, [
        ...['-c', formatLiteral(agent.launch.cwd), ...env, '--', ...agent.launch.command],
      ]),
    );
    started(() => {});
    panes.push({ id, tool: agent.tool });
  }
  return panes;
}

/** A tmux command with the locale every tmux paneward starts gets (see observe/tmux-locale.ts). */
function runTmux(args: readonly string[], options: { reject?: boolean } = {}) {
  return execa('tmux', tmuxArgs(args), { env: tmuxEnv(), extendEnv: false, ...options });
}
