/**
 * An agent driving another agent through paneward's MCP server: a lead Claude Code, offline
 * against one loopback model server, runs `paneward mcp` as its MCP server (--mcp-config, the
 * tool allowed with --allowedTools). Its model server scripts a call of `send_prompt` on a
 * second pane where a worker Claude Code runs against another model server. The lead's next
 * model request must carry the tool result with the worker turn's real outcome and turn id,
 * and paneward's journal must show that turn.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { toolConfig } from '../../../src/mcp/tools.js';
import { journalDir, readSegments } from '../../../src/journal/segments.js';
import type { JournalRecord } from '../../../src/schemas/record.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Protocol,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-mcp-claude', String(process.pid));
const missing = !existsSync(CLAUDE_CODE_BIN);
/** How Claude Code names a tool of the MCP server configured as `paneward`. */
const SEND_TOOL = 'mcp__paneward__send_prompt';
const WORKER_REPLY = 'PONG from the worker, who did as it was asked.';

interface Message {
  role: string;
  content: string | Array<{ type: string; tool_use_id?: string; content?: unknown }>;
}
interface MessagesBody {
  stream?: boolean;
  tools?: Array<{ name: string; description?: string }>;
  messages?: Message[];
}

/** The anthropic protocol, keeping every request body for the test to read. */
function recording(bodies: MessagesBody[]): Protocol {
  return {
    ...anthropicProtocol,
    handle: (ctx) => {
      bodies.push(ctx.body as MessagesBody);
      return anthropicProtocol.handle(ctx);
    },
  };
}

/** The text of a tool_result block, whichever shape it has (a string, or text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : ''))
      .join('\n');
  }
  return JSON.stringify(content);
}

/** The text of every tool_result the lead's model requests carried, oldest first. */
function toolResults(bodies: MessagesBody[]): string[] {
  const last = bodies.at(-1)?.messages ?? [];
  return last.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.filter((c) => c.type === 'tool_result').map((c) => resultText(c.content)),
  );
}

async function until<T>(what: string, read: () => T | Promise<T>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not seen in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(missing && !process.env.CI)('Claude Code drives another agent over MCP', () => {
  const socketName = uniqueSocketName('mcp-live');
  const dataDir = join(SCRATCH, 'data');
  const leadBodies: MessagesBody[] = [];
  let leadModel: FakeModelServer;
  let workerModel: FakeModelServer;
  let worker: AgentSession;
  let lead: AgentSession;
  let sup: Supervisor;

  /** Claude Code's log of its connection to the `paneward` MCP server (empty before it starts). */
  const mcpLog = (): string => {
    const cache = join(SCRATCH, 'lead-home', '.cache', 'claude-cli-nodejs');
    if (!existsSync(cache)) return '';
    return readdirSync(cache)
      .map((project) => join(cache, project, 'mcp-logs-paneward'))
      .filter((dir) => existsSync(dir))
      .flatMap((dir) => readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')))
      .join('\n');
  };
  const journal = (): JournalRecord[] =>
    existsSync(journalDir(dataDir)) ? readSegments(journalDir(dataDir)).records : [];

  beforeAll(async () => {
    if (missing) throw new Error(`Claude Code is not installed at ${CLAUDE_CODE_BIN}`);
    rmSync(SCRATCH, { recursive: true, force: true });
    leadModel = await startFakeModelServer({ protocols: [recording(leadBodies)] });
    workerModel = await startFakeModelServer({ protocols: [anthropicProtocol] });

    worker = await startAgentSession({
      socketName,
      sessionName: 'worker',
      cols: 140,
      rows: 40,
      ...prepareClaudeCode({
        home: join(SCRATCH, 'worker-home'),
        cwd: join(SCRATCH, 'worker-work'),
        baseUrl: workerModel.url,
      }),
    });
    await worker.waitForText(/❯/, 60_000);

    // The lead's MCP server: paneward on the same tmux socket, serving the worker's pane.
    const mcpConfig = join(SCRATCH, 'mcp.json');
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'lead-home'),
      cwd: join(SCRATCH, 'lead-work'),
      baseUrl: leadModel.url,
    });
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: {
          paneward: {
            type: 'stdio',
            command: process.execPath,
            args: [
              BIN,
              'mcp',
              '-L',
              socketName,
              '--no-discover',
              '--data-dir',
              dataDir,
              `${worker.target}`,
            ],
          },
        },
      }),
    );
    lead = await startAgentSession({
      socketName,
      sessionName: 'lead',
      cols: 160,
      rows: 45,
      ...launch,
      // A generous bound on the MCP server's start (Claude Code's default is 30 s).
      env: { ...launch.env, MCP_TIMEOUT: '120000' },
      command: [...launch.command, '--mcp-config', mcpConfig, '--allowedTools', SEND_TOOL],
    });
    await lead.waitForText(/❯/, 60_000);
    // paneward mcp has attached the worker's pane once its journal says so.
    await until(
      'the worker attached by paneward mcp',
      () => journal().some((r) => r.kind === 'terminal.attached'),
      60_000,
    );
    // Claude Code logs its MCP connection: the tools are known once it is established.
    await until(
      'Claude Code connected to paneward mcp',
      () => mcpLog().includes('Connection established'),
      120_000,
    );
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } });
    await sup.attach({ target: lead.target, tool: 'claude_code', id: 'lead' });
    await until('the lead ready', () => sup.get('lead').readiness.status === 'ready', 60_000);
  }, 180_000);

  afterAll(async () => {
    await sup?.stop();
    // Closing the lead's tmux server ends Claude Code, and with its stdin paneward mcp.
    await lead?.close().catch(() => {});
    await worker?.close().catch(() => {});
    await leadModel?.close();
    await workerModel?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  it("gets the worker's turn outcome and turn id back as the tool's result", async () => {
    const started = Date.now();
    leadModel.enqueue(
      // As a model does: load the deferred tool's schema first, then call it.
      {
        text: 'Let me find the tool.',
        toolUse: { name: 'ToolSearch', input: { query: `select:${SEND_TOOL}`, max_results: 5 } },
      },
      {
        text: 'I will ask the worker.',
        toolUse: {
          name: SEND_TOOL,
          input: { terminal: worker.target, prompt: 'Say PONG, please.', timeoutSeconds: 120 },
        },
      },
      { text: 'The worker finished its turn.' },
    );
    workerModel.enqueue({ delayMs: 300, text: WORKER_REPLY, chunkDelayMs: 60 });

    const lead1 = await sup.runTurn('lead', 'Ask the worker agent to say PONG.', {
      timeoutMs: 180_000,
    });
    const diagnose = async () =>
      `lead screen:\n${await lead.capture()}\nworker screen:\n${await worker.capture()}`;
    expect(lead1.lastTurn.result, await diagnose()).toBe('success');

    const turnRequests = leadBodies.filter((b) => b.stream && (b.tools?.length ?? 0) > 0);
    // Claude Code 2.1.330 offers MCP tools by name only, deferred behind its ToolSearch tool;
    // once loaded, the later requests carry it with its description and schema.
    expect(JSON.stringify(turnRequests[0]), await diagnose()).toContain(SEND_TOOL);
    const loaded = turnRequests.at(-1)?.tools?.find((t) => t.name === SEND_TOOL);
    // The description paneward's server gives the tool, whole (the contract's summary first).
    expect(loaded?.description, await diagnose()).toBe(toolConfig('send_prompt').description);

    // The worker's turn, as paneward recorded it.
    const ended = journal().filter(
      (r): r is Extract<JournalRecord, { kind: 'turn.ended' }> => r.kind === 'turn.ended',
    );
    expect(ended, await diagnose()).toHaveLength(1);
    const turn = ended[0]!;
    expect(turn.outcome).toBe('success');
    expect(turn.source).toBe('explicit_input');
    expect(journal().some((r) => r.kind === 'turn.started' && r.turnId === turn.turnId)).toBe(true);
    expect(
      workerModel.log().filter((e) => e.streaming && e.outcome === 'completed'),
    ).not.toHaveLength(0);

    // The lead's next model request carries the tool's result: that turn's id and outcome.
    const results = toolResults(turnRequests).filter((r) => r.includes('outcome'));
    expect(results.length, await diagnose()).toBeGreaterThan(0);
    const result = results.at(-1)!;
    expect(result).toContain(turn.turnId);
    expect(result).toMatch(/\bsuccess\b/);
    expect(result).not.toMatch(/isError|not_ready|unknown_terminal/);
    console.info(`mcp live turn: ${Date.now() - started} ms; tool result: ${result}`);
  }, 240_000);
});
