/**
 * `paneward mcp` as a client starts it: a process speaking JSON-RPC on stdin/stdout. A pane on
 * a private tmux socket plays a real Claude Code recording under the CLI's process name, so the
 * default mode (a supervisor of its own, discovering agent panes) finds it. Nothing but the
 * protocol may reach stdout, and the server ends when its client closes stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSocketName } from '../e2e/harness/session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/paneward.js');
const PLAYER = join(ROOT, 'src/tooling/demo/player.mjs');
const RECORDING = join(ROOT, 'recordings/claude_code/normal-turn.jsonl');
const SCRATCH = resolve('.tmp/mcp-stdio', String(process.pid));

interface Rpc {
  jsonrpc: '2.0';
  id?: number;
  result?: { structuredContent?: unknown; isError?: boolean; content?: Array<{ text: string }> };
  error?: unknown;
}

/** A `paneward mcp` process, with every stdout line parsed as JSON-RPC (or kept as garbage). */
function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  const messages: Rpc[] = [];
  const garbage: string[] = [];
  let stderr = '';
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      try {
        messages.push(JSON.parse(line) as Rpc);
      } catch {
        garbage.push(line);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let next = 1;
  const send = (method: string, params: unknown = {}, notify = false) => {
    const id = notify ? undefined : next++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params, id })}\n`);
    return id;
  };
  const reply = async (id: number, ms = 20_000): Promise<Rpc> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = messages.find((x) => x.id === id);
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`no reply to ${id}; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const request = async (method: string, params: unknown = {}) => reply(send(method, params)!);
  return { child, messages, garbage, exited, send, request, stderr: () => stderr };
}

describe('paneward mcp over stdio', () => {
  const socketName = uniqueSocketName('mcp-stdio');

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    const bin = join(SCRATCH, 'bin');
    mkdirSync(bin, { recursive: true });
    // The player runs under the CLI's name, as the demo does: discovery knows it by that.
    symlinkSync(process.execPath, join(bin, 'claude'));
    await execa('tmux', [
      ...['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'rec'],
      ...['-x', '160', '-y', '45', '--', join(bin, 'claude'), PLAYER, RECORDING, '6'],
    ]);
  }, 30_000);

  afterAll(async () => {
    await execa('tmux', ['-L', socketName, 'kill-server'], { reject: false });
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('speaks only the protocol on stdout, finds the agent pane, and ends with its stdin', async () => {
    const mcp = start(['-L', socketName]);
    try {
      const init = await mcp.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'test', version: '0' },
      });
      expect(init.result).toMatchObject({ serverInfo: { name: 'paneward' } });
      mcp.send('notifications/initialized', {}, true);
      const tools = await mcp.request('tools/list');
      expect(
        (tools.result as unknown as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
      ).toContain('send_prompt');

      // Discovered within a few of its 2-second rounds.
      const deadline = Date.now() + 20_000;
      let terminals: Array<{ target: string; tool: string }> = [];
      while (terminals.length === 0) {
        if (Date.now() > deadline) throw new Error(`nothing discovered; ${mcp.stderr()}`);
        await new Promise((r) => setTimeout(r, 300));
        const r = await mcp.request('tools/call', { name: 'list_terminals', arguments: {} });
        terminals = (r.result!.structuredContent as { terminals: typeof terminals }).terminals;
      }
      expect(terminals).toMatchObject([{ tool: 'claude_code' }]);
      expect(mcp.stderr()).toContain('paneward mcp: serving');
    } finally {
      mcp.child.stdin.end();
    }
    expect(await mcp.exited).toBe(0);
    expect(mcp.garbage).toEqual([]);
  }, 60_000);

  it('refuses options that mix a running service with a supervisor of its own, naming --url', async () => {
    const mcp = start(['--url', 'http://127.0.0.1:8787', '-L', socketName]);
    expect(await mcp.exited).toBe(2);
    expect(mcp.stderr()).toMatch(/field `url`|--url/);
    expect(mcp.messages).toEqual([]);
    expect(mcp.garbage).toEqual([]);
  }, 30_000);

  it('refuses a pane that is not there before serving anything', async () => {
    const mcp = start(['-L', socketName, 'nosuch:0.0']);
    expect(await mcp.exited).toBe(2);
    expect(mcp.stderr()).toMatch(/target/);
    expect(mcp.garbage).toEqual([]);
  }, 30_000);
});
