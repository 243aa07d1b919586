// Claude Code on the fake model server in a tmux pane, under a supervisor, and an MCP SDK client
// connected to a paneward MCP server over that supervisor: the fixture of the MCP server tests.
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { embeddedBackend, type McpBackend } from '../../../src/mcp/backend.js';
import { createMcpServer } from '../../../src/mcp/server.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import {
  startAgentSession,
  uniqueSocketName,
  type AgentSession,
} from '../../e2e/harness/session.js';

export const SCRATCH = resolve('.tmp/mcp-server', String(process.pid));
export const missing = !existsSync(CLAUDE_CODE_BIN);
export const STEP_MS = 90_000;

/** An SDK client connected to a new MCP server over `backend`, in memory. */
export async function connect(backend: McpBackend): Promise<Client> {
  const server = createMcpServer(backend, '0.0.0-test', { progressMs: 500 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'paneward-test', version: '0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

export const textOf = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

export const socketName = uniqueSocketName('mcp-unit');
export let model: FakeModelServer;
export let agent: AgentSession;
export let sup: Supervisor;
export let client: Client;

export const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

export const untilReady = async (ms = 60_000) => {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await call('list_terminals');
    const t = (r.structuredContent as { terminals: Array<{ readiness: string }> }).terminals[0];
    if (t?.readiness === 'ready') return;
    if (Date.now() > deadline) throw new Error(`not ready in ${ms} ms: ${textOf(r)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

/** Starts the fixture before the tests of the calling suite, and stops it after them. */
export function claudeUnderSupervisor(): void {
  beforeAll(async () => {
    if (missing) throw new Error(`Claude Code is not installed at ${CLAUDE_CODE_BIN}`);
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: join(SCRATCH, 'work'),
      baseUrl: model.url,
    });
    agent = await startAgentSession({ socketName, cols: 160, rows: 45, ...launch });
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } });
    await sup.attach({ target: agent.target, tool: 'claude_code', id: 'claude' });
    client = await connect(embeddedBackend(sup, 'a test supervisor', { socket: { socketName } }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await sup?.stop();
    await agent?.close();
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 30_000);
}
