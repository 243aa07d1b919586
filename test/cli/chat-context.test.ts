/// <reference lib="dom" />
/**
 * A degraded chat context as every surface shows it. A real tmux pane plays Codex 0.171.0's real
 * recording of a failed compaction (the player runs under the name `codex`, as the demo's do),
 * the supervisor reads it with the Codex profile, and `paneward ls`, `paneward state`, the
 * original `/houmao` state route, the MCP server and the dashboard (real Chromium) each say the
 * context is degraded and why; a pane playing a compaction that worked says nothing of it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { embeddedBackend } from '../../src/mcp/backend.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { uniqueSocketName } from '../e2e/harness/session.js';
import { CHROMIUM, launchBrowser } from '../dashboard/internal/browser.js';

const PLAYER = fileURLToPath(new URL('../../src/tooling/demo/player.mjs', import.meta.url));
const RECORDINGS = fileURLToPath(new URL('../fixtures/codex/0.171.0/', import.meta.url));

async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await main(argv), out };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('a degraded chat context on every surface, from a real recording in a real pane', () => {
  const socketName = uniqueSocketName('surfaces');
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url = '';
  let browser: Browser | undefined;
  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 60_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-ctx-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'codex'));
    // Each pane plays its recording once, then holds the last frame (a long pause).
    for (const [session, file] of [
      ['failed', 'compact-error-500.jsonl'],
      ['compacted', 'compact-auto.jsonl'],
    ] as const) {
      await execa('tmux', [
        ...['-L', socketName, 'new-session', '-d', '-s', session, '-x', '120', '-y', '40'],
        ...[join(bin, 'codex'), PLAYER, join(RECORDINGS, file), '3600', String(process.pid)],
      ]);
    }
    sup = createSupervisor({
      socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.25 },
    });
    await sup.attach({ target: 'failed:0.0', tool: 'codex', toolVersion: '0.171.0', id: 'f1' });
    await sup.attach({ target: 'compacted:0.0', tool: 'codex', toolVersion: '0.171.0', id: 'c1' });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await execa('tmux', ['-L', socketName, 'kill-server'], { reject: false });
    rmSync(dir, { recursive: true, force: true });
  });

  it('the public state, ls, state, /houmao, MCP and the dashboard say degraded, and why', async () => {
    const degraded = await until('f1', (s) => s.chatContext.state === 'degraded');
    expect(degraded.chatContext).toEqual({
      state: 'degraded',
      degradedErrorType: 'codex_remote_compact_server_error',
    });
    // Recoverable evidence next to an idle prompt: the terminal is ready for the next prompt.
    const ready = await until('f1', (s) => s.readiness.status === 'ready');
    expect(ready.chatContext.state).toBe('degraded');
    // The compaction that worked: once its pane shows the whole recording (the reply after
    // `• Context compacted`), it reads current, and no state of it said otherwise.
    const seen: string[] = [];
    const sub = sup.state$('c1').subscribe((s) => seen.push(s.chatContext.state));
    const capture = async () =>
      (await execa('tmux', ['-L', socketName, 'capture-pane', '-p', '-t', 'compacted:0.0'])).stdout;
    const deadline = Date.now() + 90_000;
    while (!/Context compacted[\s\S]*Hello! This reply[\s\S]*Worked for/.test(await capture())) {
      if (Date.now() > deadline) throw new Error(`compact-auto not played:\n${await capture()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await until('c1', (s) => s.readiness.status === 'ready');
    expect((await until('c1', () => true)).chatContext).toEqual({ state: 'current' });

    const ls = await cli('ls', '--url', url);
    expect(ls.code).toBe(0);
    const rows = ls.out.trimEnd().split('\n');
    expect(rows.find((l) => l.startsWith('f1'))).toMatch(/^f1 +\S+ +codex \(context degraded\) /);
    expect(rows.find((l) => l.startsWith('c1'))).not.toContain('context degraded');

    const state = await cli('state', 'f1', '--url', url);
    expect(state.out).toContain('  chat context: degraded (codex_remote_compact_server_error)\n');
    const json = JSON.parse(
      (await cli('state', 'f1', '--url', url, '--json')).out,
    ) as TerminalState;
    expect(json.chatContext.degradedErrorType).toBe('codex_remote_compact_server_error');

    const houmao = (await (await fetch(`${url}/houmao/terminals/f1/state`)).json()) as {
      chat_context: unknown;
    };
    expect(houmao.chat_context).toEqual({
      state: 'degraded',
      degraded_error_type: 'codex_remote_compact_server_error',
    });

    const mcp = createMcpServer(
      embeddedBackend(sup, 'a test supervisor', { socket: { socketName } }),
      '0.0.0-test',
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'paneward-test', version: '0' });
    await Promise.all([mcp.connect(b), client.connect(a)]);
    const listed = (await client.callTool({
      name: 'list_terminals',
      arguments: {},
    })) as CallToolResult;
    const text = listed.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    expect(text).toMatch(/^f1 .*; chat context degraded \(codex_remote_compact_server_error\);/m);
    expect(text).not.toMatch(/^c1 .*chat context degraded/m);
    const structured = listed.structuredContent as {
      terminals: Array<{ terminalId: string; chatContext: unknown }>;
    };
    expect(structured.terminals.find((t) => t.terminalId === 'f1')?.chatContext).toEqual({
      state: 'degraded',
      degradedErrorType: 'codex_remote_compact_server_error',
    });
    await client.close();

    sub.unsubscribe();
    expect(seen).not.toContain('degraded');

    if (!existsSync(CHROMIUM)) return;
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/`);
    await page.waitForSelector('#grid tr[data-id="f1"] .context-degraded');
    expect(await page.textContent('#grid tr[data-id="f1"] .context-degraded')).toBe(
      'context degraded',
    );
    expect(await page.getAttribute('#grid tr[data-id="f1"] .context-degraded', 'title')).toBe(
      'codex_remote_compact_server_error',
    );
    expect(await page.$('#grid tr[data-id="c1"] .context-degraded')).toBeNull();
  }, 180_000);
});
