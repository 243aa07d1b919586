import { formatLiteral, tmuxArgv } from '../../observe/tmux-argv.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from 'pino';
import { PanewardError } from '../../errors.js';
import { packageFile } from '../../internal/package-root.js';
import { tmuxArgs, tmuxEnv } from '../../observe/tmux-locale.js';
import { getProfile } from '../../profiles/index.js';
import { RecordingHeader } from '../../schemas/recording.js';
import { createLogger, serve as startService, type RunningServer } from '../../serve.js';
import type { FakeModelServer } from '../model-server/server.js';
import type { AgentRecipe } from './guide.js';
import { installedAgents, startDemoModel, type LiveAgent } from './live.js';
import { DemoReaper } from './reaper.js';

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
  /** The private tmux server's name (`-L`); default `paneward-demo-<pid>`. */
  socketName?: string;
  /** Seconds a pane rests on its last frame before it plays again. */
  pauseSeconds?: number;
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logger?: Logger;
}

export interface RunningDemo {
  url: string;
  socketName: string;
  terminals: string[];
  serve: RunningServer;
  /** The built-in model server every CLI of the demo talks to (loopback). */
  modelUrl: string;
  /**
   * How each installed CLI runs offline: with `--live` the ones in the demo's panes; else the
   * ones the dashboard's Start form offers.
   */
  agents: AgentRecipe[];
  /** The scratch folder: the CLIs' homes, keys, configs, and the journal. */
  scratch: string;
  /** What `stop()` ends, one `[what, which]` a line, to tell a person before it does. */
  parts(): Array<[string, string]>;
  /** Ends everything, gently first (SIGTERM), within about a second; idempotent. */
  stop(): Promise<void>;
  /**
   * Ends everything at once, synchronously (SIGKILL by pid, then the socket file and the
   * scratch folder): for a second Ctrl-C, or a stop that overran its time.
   */
  killNow(): void;
}

/** How long the demo's processes are given to end after SIGTERM before SIGKILL. */
const TERM_GRACE_MS = 300;

/**
 * `paneward demo`: a private tmux server whose panes play real recordings of Claude Code, Codex
 * and Gemini CLI at their recorded pace, each by a player process named like the CLI (so the
 * supervisor finds and reads it as it would the CLI), supervised and served with the
 * dashboard; with `live`, the installed agent CLIs instead, offline against the built-in model
 * server. Needs tmux; no key. `stop()` ends every process it started (followed by pid, daemons
 * too), the tmux server and its socket file, and removes its scratch folder.
 */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const scratch = mkdtempSync(join(tmpdir(), 'paneward-demo-'));
  const socketName = options.socketName ?? `paneward-demo-${process.pid}`;
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  const reaper = new DemoReaper(scratch);
  // Codex's app-server daemon leaves its pane: it writes its pid (and its updater's) here.
  const daemonDir = join(scratch, 'agents', 'codex', 'home', '.codex', 'app-server-daemon');
  const look = () => {
    reaper.addPidFiles(['daemon.pid', 'daemon-updater.pid'].map((f) => join(daemonDir, f)));
    reaper.sample();
  };
  let tmux: { pid: number; socket: string } | null = null;
  let model: FakeModelServer | null = null;
  let serve: RunningServer | null = null;
  let sampler: NodeJS.Timeout | null = null;
  const started = async () => {
    if (tmux) return;
    const r = await runTmux(['-L', socketName, 'display-message', '-p', '#{pid} #{socket_path}']);
    const [pid, ...path] = r.stdout.trim().split(' ');
    tmux = { pid: Number(pid), socket: path.join(' ') };
    reaper.addRoot(tmux.pid);
  };
  const removeFiles = () => {
    if (tmux?.socket) rmSync(tmux.socket, { force: true });
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  };
  let killed = false;
  const killNow = () => {
    if (killed) return;
    killed = true;
    if (sampler) clearInterval(sampler);
    look();
    reaper.killNow();
    removeFiles();
  };
  const cleanup = async () => {
    if (sampler) clearInterval(sampler);
    look();
    const serving = serve?.stop().catch(() => undefined);
    // The tmux server (a root the reaper follows) hangs up its panes; the CLIs and daemons get
    // SIGTERM, and SIGKILL if they have not ended within the grace.
    reaper.signal('SIGTERM');
    await reaper.findNamed();
    reaper.signal('SIGTERM');
    const deadline = Date.now() + TERM_GRACE_MS;
    while (Date.now() < deadline) {
      look();
      if (reaper.alive().length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    reaper.killNow();
    await serving;
    await model?.close().catch(() => undefined);
    if (!killed) removeFiles();
  };
  try {
    // Everything on the demo's tmux server is ended with it: never someone else's server.
    const existing = await runTmux(['-L', socketName, 'list-sessions'], { reject: false });
    if (existing.exitCode === 0) {
      throw new PanewardError(
        'invalid_input',
        `demo: field \`socketName\`: a tmux server already runs on ${socketName}; the demo starts its own`,
      );
    }
    model = await startDemoModel();
    const agents = installedAgents(scratch, model.url);
    const panes = options.live
      ? await startLivePanes(socketName, agents, started)
      : await startRecordedPanes(socketName, bin, options.pauseSeconds ?? 6, started);
    sampler = setInterval(() => look(), 1000);
    sampler.unref();
    const recipes = agents.map((a) => recipeOf(a, options.live ? `${a.tool}-live` : null));
    // The Start form finds the installed CLIs: their folders come first on the spawn PATH.
    const binDirs = [...new Set(agents.map((a) => dirname(a.launch.command[0]!)))];
    serve = await startService({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      token: null,
      logger: options.logger ?? createLogger(options.logLevel ?? 'warn'),
      spawnPresets: Object.fromEntries(recipes.map((r) => [r.tool, { cwd: r.cwd, env: r.env }])),
      supervisor: {
        options: {
          socketName,
          dataDir: join(scratch, 'data'),
          source: 'control',
          spawnEnv: {
            ...process.env,
            PATH: [...binDirs, process.env.PATH ?? '/usr/bin:/bin'].join(delimiter),
          },
        },
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
    const running = serve;
    const modelUrl = model.url;
    return {
      url: `${running.url}/`,
      socketName,
      terminals: panes.map((p) => p.id),
      serve: running,
      modelUrl,
      agents: recipes,
      scratch,
      parts: () => {
        look();
        const cliPids = reaper.alive().filter((pid) => pid !== tmux?.pid);
        return [
          ...panes.map((p): [string, string] => [p.id, `${p.tool} in its pane`]),
          ['processes', `${cliPids.length} under the panes, and daemons they left (by pid)`],
          ['model server', modelUrl],
          ['tmux server', `${socketName} (pid ${tmux?.pid}, socket ${tmux?.socket})`],
          ['scratch folder', `${scratch} (the CLIs' homes, keys, configs, journal)`],
        ];
      },
      stop: () => (stopping ??= cleanup()),
      killNow,
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

/** What the demo prints, and the form presets, for one installed CLI. */
function recipeOf(agent: LiveAgent, pane: string | null): AgentRecipe {
  // The PATH the CLI's launch copies from this process adds nothing to the tmux server's own.
  const env = Object.fromEntries(
    Object.entries(agent.launch.env).filter(([k, v]) => !(k === 'PATH' && v === process.env.PATH)),
  );
  return { tool: agent.tool, pane, cwd: agent.launch.cwd, env, command: agent.launch.command };
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
  started: () => Promise<void>,
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
    await started();
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
  agents: LiveAgent[],
  started: () => Promise<void>,
): Promise<DemoPane[]> {
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
    const env = Object.entries(agent.launch.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const id = `${agent.tool}-live`;
    await runTmux(
      tmuxNew(socketName, id, 160, 45, [
        ...['-c', formatLiteral(agent.launch.cwd), ...env, '--', ...agent.launch.command],
      ]),
    );
    await started();
    panes.push({ id, tool: agent.tool });
  }
  return panes;
}

/** A tmux command with the locale every tmux paneward starts gets (see observe/tmux-locale.ts). */
function runTmux(args: readonly string[], options: { reject?: boolean } = {}) {
  return execa('tmux', tmuxArgs(args), { env: tmuxEnv(), extendEnv: false, ...options });
}
