import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { packageRoot } from '../../internal/package-root.js';
import { awaitExit } from '../../internal/await-exit.js';

const repoRoot = packageRoot();

/** Facts about Codex CLI the end-to-end tests and recordings need. */
export const codexAgent = {
  tool: 'codex',
  version: '0.171.0',
  bin: join(repoRoot, '.tmp/agents/codex/node_modules/.bin/codex'),
  model: 'gpt-fake-1',
  /** Process names under the pane while the CLI runs (the node launcher and the native binary). */
  processNames: ['codex'],
  providerId: 'paneward_fake',
  apiKeyEnv: 'PANEWARD_FAKE_OPENAI_KEY',
  /** The shell tool Codex offers the model, and the argument that asks to run outside the sandbox. */
  shellTool: 'exec_command',
  /** Argument that asks to run outside the sandbox: this is what makes Codex ask for approval. */
  escalation: { sandbox_permissions: 'require_escalated' },
  /** Keys typed into the approval dialog to run the command once. */
  approveKeys: ['y'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  /** Starts a new line in the composer without submitting. */
  newlineKeys: ['C-j'],
  /** Answers the start-up trust question with its first option (trust the folder). */
  trustKeys: ['Enter'],
  /** The slash command that quits the CLI. */
  quitCommand: '/quit',
} as const;

export interface CodexLaunchOptions {
  /** Scratch directory for HOME and CODEX_HOME (created). */
  scratchDir: string;
  /** The folder Codex works in (created and trusted). */
  workDir: string;
  /** Fake server base URL, without `/v1`. */
  serverUrl: string;
  apiKey?: string;
  /** Provider retries (kept at 0 so error scenarios stay short). */
  retries?: number;
  /** How long Codex waits on a silent stream before giving up. */
  streamIdleTimeoutMs?: number;
  /** List the work folder as trusted (the default); false leaves it out, so Codex asks. */
  trusted?: boolean;
  /** Write only the model and its provider, as a new user would (implies an untrusted folder). */
  providerOnly?: boolean;
  /**
   * An installed background-server package to put into the scratch home (hard links), as
   * {@link installedDaemonPackages} returns it; without it Codex 0.171 installs its own first.
   */
  daemonPackages?: string | null;
  /**
   * The provider's display name. `OpenAI` makes Codex treat the loopback server as OpenAI itself,
   * which is what turns on its remote compaction (a `compaction_trigger` request whose answer
   * replaces the history); any other name compacts with an ordinary summary request.
   */
  providerName?: string;
  /** The model's context window and the usage at which Codex compacts on its own, in tokens. */
  contextWindow?: { tokens: number; autoCompactAt: number };
}

export interface AgentLaunch {
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

const tomlString = (s: string) => JSON.stringify(s);

/** The `config.toml` that points Codex at the fake provider, offline, with the folder trusted (by default). */
export function codexConfigToml(o: CodexLaunchOptions): string {
  const a = codexAgent;
  const settings = o.providerOnly
    ? []
    : [
        `approval_policy = "on-request"`,
        `sandbox_mode = "workspace-write"`,
        `check_for_update_on_startup = false`,
        `model_reasoning_effort = "none"`,
      ];
  const window = o.contextWindow
    ? [
        `model_context_window = ${o.contextWindow.tokens}`,
        `model_auto_compact_token_limit = ${o.contextWindow.autoCompactAt}`,
      ]
    : [];
  return [
    `model = ${tomlString(a.model)}`,
    `model_provider = ${tomlString(a.providerId)}`,
    ...settings,
    ...window,
    '',
    `[model_providers.${a.providerId}]`,
    `name = ${tomlString(o.providerName ?? 'Fake OpenAI')}`,
    `base_url = ${tomlString(`${o.serverUrl}/v1`)}`,
    `env_key = ${tomlString(a.apiKeyEnv)}`,
    `wire_api = "responses"`,
    `request_max_retries = ${o.retries ?? 0}`,
    `stream_max_retries = ${o.retries ?? 0}`,
    `stream_idle_timeout_ms = ${o.streamIdleTimeoutMs ?? 300_000}`,
    '',
    ...(o.trusted === false || o.providerOnly
      ? []
      : [`[projects.${tomlString(o.workDir)}]`, `trust_level = "trusted"`, '']),
  ].join('\n');
}

/** Prepares a scratch home for Codex and returns how to launch it against the fake server. */
export function prepareCodex(o: CodexLaunchOptions): AgentLaunch {
  const home = join(o.scratchDir, 'home');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), codexConfigToml(o));
  if (o.daemonPackages) copyDaemonPackages(o.daemonPackages, join(codexHome, 'packages'));
  return {
    command: [codexAgent.bin],
    cwd: o.workDir,
    env: {
      HOME: home,
      CODEX_HOME: codexHome,
      [codexAgent.apiKeyEnv]: o.apiKey ?? 'sk-fake-paneward',
      TERM: 'xterm-256color',
      NO_PROXY: '127.0.0.1,localhost',
      LANG: 'C.UTF-8',
    },
  };
}

/**
 * The installed releases as hard links (over 400 MB, never written to); the rest (the selection,
 * lock files) as files of this home's own, so that no two homes share a lock; and the `current`
 * link pointed at this home's copy, so that the server runs from (and is found under) this home.
 */
function copyDaemonPackages(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  for (const pkg of readdirSync(from)) {
    mkdirSync(join(to, pkg), { recursive: true });
    for (const entry of readdirSync(join(from, pkg))) {
      const source = join(from, pkg, entry);
      const target = join(to, pkg, entry);
      if (lstatSync(source).isSymbolicLink()) {
        const points = readlinkSync(source);
        symlinkSync(points.startsWith(from) ? to + points.slice(from.length) : points, target);
        continue;
      }
      const link = entry === 'releases' ? ['-l'] : [];
      execFileSync('cp', ['-a', ...link, source, target]);
    }
  }
}

/**
 * Codex 0.171 runs its sessions in a background server whose package (a copy of the whole CLI
 * package, over 400 MB) it installs into `CODEX_HOME/packages/` on its first start, and the TUI
 * takes no input until that is done: 45-70 s on a loaded machine. A user meets that once per
 * release. To start a test or recording as a returning user does, this installs the package once
 * per CLI version (`codex app-server daemon start`, then its processes ended) into
 * `.tmp/agents/codex-daemon/<version>/` and returns its `packages` folder for
 * {@link CodexLaunchOptions.daemonPackages}; null when the CLI installs none there.
 */
export async function installedDaemonPackages(): Promise<string | null> {
  const scratch = join(repoRoot, '.tmp/agents/codex-daemon', codexAgent.version);
  const packages = join(scratch, 'home', '.codex', 'packages');
  const done = join(scratch, 'installed');
  if (existsSync(done)) return existsSync(packages) ? packages : null;
  rmSync(scratch, { recursive: true, force: true });
  const home = join(scratch, 'home');
  mkdirSync(join(home, '.codex'), { recursive: true });
  try {
    await execa(codexAgent.bin, ['app-server', 'daemon', 'start'], {
      cwd: home,
      env: { HOME: home, CODEX_HOME: join(home, '.codex'), PATH: process.env.PATH ?? '' },
      extendEnv: false,
      timeout: 300_000,
    });
  } finally {
    await stopCodexDaemons(scratch);
  }
  writeFileSync(done, '');
  return existsSync(packages) ? packages : null;
}

/**
 * Codex leaves an app-server daemon (and its pid-update loop) running after the TUI exits. Their
 * pids are in `<CODEX_HOME>/app-server-daemon/*.pid`; only processes whose command line names
 * this scratch home are signalled, so nothing outside the scratch run is touched. Resolves once
 * they have exited (the scratch folder can then be removed).
 */
export async function stopCodexDaemons(scratchDir: string): Promise<number[]> {
  const codexHome = join(scratchDir, 'home', '.codex');
  const killed: number[] = [];
  for (const file of ['daemon.pid', 'daemon-updater.pid']) {
    const path = join(codexHome, 'app-server-daemon', file);
    if (!existsSync(path)) continue;
    let pid: number;
    try {
      pid = Number((JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown }).pid);
    } catch {
      continue;
    }
    if (!Number.isInteger(pid) || pid <= 1) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // already gone
    }
    if (!cmdline.includes(codexHome)) continue;
    try {
      process.kill(pid, 'SIGTERM');
      killed.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  await awaitExit(killed);
  return killed;
}
