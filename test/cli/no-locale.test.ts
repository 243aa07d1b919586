/**
 * paneward started with no locale at all (cron, systemd units, bare containers, an MCP client's
 * minimal environment): `serve`, `watch`, `mcp` (through the MCP SDK's own client) and `spawn`
 * run under `PATH` and `HOME` only, and must see the panes as they do with a UTF-8 locale:
 * names and ids whole, non-ASCII text read right. tmux 3.3a replaces tabs and non-ASCII bytes of
 * its output with `_` for a client it thinks cannot show UTF-8.
 *
 * One tmux server is started by the test (with its own environment): session `wörk`, window 0 a
 * shell that prints non-ASCII text, window 1 a recorded Claude Code played under the CLI's name.
 * The spawn tests start on sockets with no server, so paneward starts the server itself, bare.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSocketName } from '../e2e/harness/session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/paneward.js');
const PLAYER = join(ROOT, 'src/tooling/demo/player.mjs');
const RECORDING = join(ROOT, 'recordings/claude_code/normal-turn.jsonl');
const SCRATCH = resolve('.tmp/no-locale', String(process.pid));
const HOME = join(SCRATCH, 'home');
const AGENT_BIN = join(SCRATCH, 'bin');
const TEXT = 'héllo wörld ✓ 日本';
// A line of the recorded Claude Code screen, with a non-ASCII middle dot.
const RECORDED = 'Opus 5.5 · API Usage Billing';
const LOCALE_VARS = /^(LANG|LANGUAGE|LC_[A-Z]+)$/;

/** No locale at all: what cron or `env -i` hands a program. */
const BARE = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME };

const tmux = (socket: string, ...args: string[]) =>
  execa('tmux', ['-L', socket, ...args], { reject: false, stdin: 'ignore' });

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/** The locale variables of a process (a pane's program), from /proc. */
function localeOf(pid: number): Record<string, string> {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return Object.fromEntries(
    env
      .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] as const)
      .filter(([k]) => LOCALE_VARS.test(k)),
  );
}

/** Whether the character type a program would take from these variables is UTF-8. */
function utf8Ctype(vars: Record<string, string>): boolean {
  const effective = [vars.LC_ALL, vars.LC_CTYPE, vars.LANG].find((v) => v);
  return effective !== undefined && /utf-?8/i.test(effective);
}

interface Serve {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** `paneward serve` under the bare environment. */
async function startServe(socket: string, extra: string[]): Promise<Serve> {
  const port = await freePort();
  const dataDir = join(SCRATCH, `data-${socket}`);
  const child = spawn(
    process.execPath,
    [
      ...[BIN, 'serve', '--port', String(port), '-L', socket, '--data-dir', dataDir],
      ...['--log-level', 'warn', ...extra],
    ],
    { env: BARE, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const url = `http://127.0.0.1:${port}`;
  await until(
    'serve to answer',
    async () => ((await fetch(`${url}/healthz`)).ok ? true : null),
    30_000,
  );
  const exited = new Promise((r) => child.once('exit', r));
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const get = async <T>(url: string): Promise<T> => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
};

interface TerminalRow {
  terminalId: string;
  target: string | null;
  tool: string;
}

const sockets: string[] = [];
const socket = (name: string) => {
  const s = uniqueSocketName(`loc-${name}`);
  sockets.push(s);
  return s;
};

describe('paneward with no locale in its environment', () => {
  const shared = socket('panes');
  // The agent pane's id, as tmux names it; discovery attaches a pane by its id.
  let agentPane = '';

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    mkdirSync(HOME, { recursive: true });
    mkdirSync(AGENT_BIN, { recursive: true });
    // The player runs under the CLI's name, as the demo does: discovery knows it by that.
    symlinkSync(process.execPath, join(AGENT_BIN, 'claude'));
    const made = await tmux(
      shared,
      ...['-f', '/dev/null', 'new-session', '-d', '-s', 'wörk', '-n', 'shéll'],
      ...['-x', '160', '-y', '45', 'sh', '-c', `printf '%s\\n' '${TEXT}'; exec cat`],
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const agent = await tmux(
      shared,
      ...['new-window', '-d', '-t', 'wörk:1', '-n', 'agent'],
      ...['--', join(AGENT_BIN, 'claude'), PLAYER, RECORDING, '6'],
    );
    expect(agent.exitCode, agent.stderr).toBe(0);
    agentPane = (await tmux(shared, 'display-message', '-p', '-t', 'wörk:1.0', '#{pane_id}'))
      .stdout;
    expect(agentPane).toMatch(/^%\d+$/);
  }, 30_000);

  afterAll(async () => {
    for (const s of sockets) await tmux(s, 'kill-server');
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('watch: prints the named pane and the discovered agent pane under their names', async () => {
    const r = await execa(
      process.execPath,
      [BIN, 'watch', '-L', shared, 'wörk:0.0', '--discover', '--duration', '6', '--format', 'json'],
      { env: BARE, extendEnv: false, reject: false, stdin: 'ignore', timeout: 30_000 },
    );
    // Lines about this machine's load may come; nothing else.
    const said = r.stderr.split('\n').filter((l) => l && !/observer_lagging|caught up/.test(l));
    expect(said).toEqual([]);
    expect(r.exitCode).toBe(0);
    const states = r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { terminalId: string; target: string; tool: string });
    const seen = new Set(states.map((s) => `${s.terminalId} ${s.target} ${s.tool}`));
    // A discovered terminal is named after its session and window, in ASCII (`ö` is a dash).
    expect(seen).toEqual(
      new Set(['t1 wörk:0.0 unsupported', `w-rk-agent ${agentPane} claude_code`]),
    );
  }, 40_000);

  it('serve: discovers the agent pane, attaches the other by name, and reads its text right', async () => {
    const serve = await startServe(shared, ['--discover-interval', '1']);
    try {
      const found = await until('the agent pane to be discovered', async () => {
        const { terminals } = await get<{ terminals: TerminalRow[] }>(`${serve.url}/v1/terminals`);
        return terminals.find((t) => t.tool === 'claude_code') ?? null;
      });
      expect([found.terminalId, found.target]).toEqual(['w-rk-agent', agentPane]);
      const attached = await fetch(`${serve.url}/v1/terminals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: 'wörk:0.0', id: 'shell' }),
      });
      expect(attached.status, await attached.clone().text()).toBe(201);
      const screen = await until('the shell pane text', async () => {
        const s = await get<{ text: string | null }>(`${serve.url}/v1/terminals/shell/screen`);
        return s.text?.includes(TEXT) ? s.text : null;
      });
      expect(screen).toContain(TEXT);
      const recorded = await until('the agent pane text', async () => {
        const s = await get<{ text: string | null }>(
          `${serve.url}/v1/terminals/${found.terminalId}/screen`,
        );
        return s.text?.includes(RECORDED) ? s.text : null;
      });
      expect(recorded).toContain(RECORDED);
      expect(serve.stderr()).toBe('');
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('spawn: starts the tmux server itself, reads the pane right, and its pane has a UTF-8 locale', async () => {
    const own = socket('spawn');
    const serve = await startServe(own, ['--no-discover']);
    try {
      const r = await execa(
        process.execPath,
        [
          ...[BIN, 'spawn', 'claude_code', '--url', serve.url, '--session', 'spawnéd'],
          ...['--name', 'ägent', '--cwd', SCRATCH, '--env', `PATH=${AGENT_BIN}:${BARE.PATH}`],
          ...['--', PLAYER, RECORDING, '6'],
        ],
        { env: BARE, extendEnv: false, reject: false, stdin: 'ignore', timeout: 60_000 },
      );
      expect(r.stderr).toBe('');
      // The terminal id is made of the names' ASCII letters; the pane id is tmux's.
      const [, paneId] = /^spawn-d-gent (%\d+) ready$/.exec(r.stdout) ?? [];
      expect(paneId, r.stdout).toBeDefined();
      const { terminals } = await get<{ terminals: TerminalRow[] }>(`${serve.url}/v1/terminals`);
      expect(terminals.map((t) => [t.terminalId, t.target])).toEqual([['spawn-d-gent', paneId]]);
      const windows = await tmux(own, 'list-windows', '-a', '-F', '#{session_name}:#{window_name}');
      expect(windows.stdout.trim()).toBe('spawnéd:ägent');
      const screen = await until('the spawned pane text', async () => {
        const s = await get<{ text: string | null }>(
          `${serve.url}/v1/terminals/spawn-d-gent/screen`,
        );
        return s.text?.includes(RECORDED) ? s.text : null;
      });
      expect(screen).toContain(RECORDED);
      // The server paneward started under no locale: the programs of its panes get one.
      const pid = Number(
        (await tmux(own, 'display-message', '-p', '-t', paneId!, '#{pane_pid}')).stdout,
      );
      expect(utf8Ctype(localeOf(pid))).toBe(true);
      expect(serve.stderr()).toBe('');
    } finally {
      await serve.stop();
    }
  }, 90_000);

  it('mcp, started by the MCP SDK client with its default environment: lists, reads and spawns', async () => {
    const env = getDefaultEnvironment();
    expect(Object.keys(env).filter((k) => LOCALE_VARS.test(k))).toEqual([]);
    const own = socket('mcp-spawn');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '-L', shared, '--discover'],
      env: { ...env, HOME },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'no-locale-test', version: '0' });
    await client.connect(transport);
    try {
      type Listed = { terminals: Array<{ terminalId: string; target: string; tool: string }> };
      const listed = await until('the agent pane to be listed', async () => {
        const r = await client.callTool({ name: 'list_terminals', arguments: {} });
        const { terminals } = r.structuredContent as Listed;
        return terminals.find((t) => t.tool === 'claude_code') ?? null;
      });
      expect([listed.terminalId, listed.target]).toEqual(['w-rk-agent', agentPane]);
      const screen = await until('the agent pane text', async () => {
        const r = await client.callTool({
          name: 'terminal_state',
          arguments: { terminal: listed.terminalId },
        });
        const text = (r.structuredContent as { screen: string | null }).screen;
        return text?.includes(RECORDED) ? text : null;
      });
      expect(screen).toContain(RECORDED);
    } finally {
      await client.close();
    }
    expect(stderr).not.toMatch(/error/i);

    // A second one on a socket with no server: its spawn starts the server, bare.
    const spawner = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '-L', own, '--no-discover'],
      env: { ...env, HOME },
      stderr: 'pipe',
    });
    let spawnerErr = '';
    spawner.stderr?.on('data', (c: Buffer) => (spawnerErr += c.toString('utf8')));
    const second = new Client({ name: 'no-locale-test', version: '0' });
    await second.connect(spawner);
    try {
      const r = await second.callTool(
        {
          name: 'spawn',
          arguments: {
            tool: 'claude_code',
            session: 'mcp-spawnéd',
            name: 'ägent',
            cwd: SCRATCH,
            env: { PATH: `${AGENT_BIN}:${BARE.PATH}` },
            args: [PLAYER, RECORDING, '6'],
          },
        },
        undefined,
        { timeout: 60_000 },
      );
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const sc = r.structuredContent as { terminalId: string; spawned: { paneId: string } };
      expect(sc.terminalId).toBe('mcp-spawn-d-gent');
      expect(sc.spawned.paneId).toMatch(/^%\d+$/);
      const state = await until('the spawned pane text', async () => {
        const s = await second.callTool({
          name: 'terminal_state',
          arguments: { terminal: sc.terminalId },
        });
        const text = (s.structuredContent as { screen: string | null }).screen;
        return text?.includes(RECORDED) ? text : null;
      });
      expect(state).toContain(RECORDED);
      const pid = Number(
        (await tmux(own, 'display-message', '-p', '-t', sc.spawned.paneId, '#{pane_pid}')).stdout,
      );
      expect(utf8Ctype(localeOf(pid))).toBe(true);
    } finally {
      await second.close();
    }
    expect(spawnerErr).not.toMatch(/error/i);
  }, 120_000);
});
