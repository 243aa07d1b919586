/**
 * `paneward serve` as a process on loopback, with real tmux and the real Claude Code CLI
 * (offline, against the fake model server), driven entirely over HTTP and SSE, and by the
 * command line as a client: attach, send, wait for success, read the events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/schemas/record.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-serve-claude');
const missing = !existsSync(CLAUDE_CODE_BIN);

interface View {
  terminalId: string;
  tool: string;
  readiness: { status: string };
  turn: { phase: string };
  operations: { sendInput: { allowed: string } };
}

describe.skipIf(missing && !process.env.CI)('paneward serve with real Claude Code', () => {
  const socketName = uniqueSocketName('pw-serve-claude');
  let model: FakeModelServer;
  let agent: AgentSession;
  let serve: ChildProcess;
  let base = '';
  const events: JournalRecord[] = [];
  const sse = new AbortController();

  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${base}${path}`)).json()) as T;
  const until = async <T>(
    what: string,
    read: () => Promise<T>,
    ok: (v: T) => boolean,
    ms = 60_000,
  ) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > deadline)
        throw new Error(`${what}: not seen in ${ms} ms: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    if (missing)
      throw new Error(
        `Claude Code is not installed at ${CLAUDE_CODE_BIN}: run scripts/install-agent.sh claude_code`,
      );
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: join(SCRATCH, 'work'),
      baseUrl: model.url,
      permissionMode: 'default',
    });
    agent = await startAgentSession({ socketName, cols: 160, rows: 45, ...launch });
    await agent.waitForText(/❯/, 60_000);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    serve = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        String(port),
        '-L',
        socketName,
        '--data-dir',
        join(SCRATCH, 'data'),
        '--no-discover',
        '--poll-interval',
        '0.25',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    base = `http://127.0.0.1:${port}`;
    await until(
      'serve up',
      () =>
        fetch(`${base}/healthz`)
          .then((r) => r.ok)
          .catch(() => false),
      (ok) => ok,
      30_000,
    );
    // Follow the record stream over SSE for the whole test.
    void (async () => {
      const res = await fetch(`${base}/v1/events`, {
        signal: sse.signal,
        headers: { accept: 'text/event-stream' },
      });
      let buffer = '';
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
            buffer = buffer.slice(end + 2);
            if (data && data.startsWith('{"v"')) events.push(JSON.parse(data) as JournalRecord);
          }
        }
      } catch {
        /* aborted at the end */
      }
    })();
  }, 120_000);

  afterAll(async () => {
    sse.abort();
    serve?.kill('SIGTERM');
    await agent?.close();
    await model?.close();
  });

  it('attaches over HTTP, detecting Claude Code from its process', async () => {
    const res = await fetch(`${base}/v1/terminals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: agent.target, id: 'claude' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ terminalId: 'claude', tool: 'claude_code' });
    const ready = await until(
      'ready',
      () => get<View>('/v1/terminals/claude'),
      (v) => v.readiness.status === 'ready' && v.turn.phase === 'ready',
    );
    expect(ready.operations.sendInput.allowed).toBe('yes');
  }, 90_000);

  it('runs a turn over HTTP from send to success; the events say so too', async () => {
    model.enqueue({ text: 'Hello from the fake model, over HTTP.', chunkDelayMs: 60 });
    const res = await fetch(`${base}/v1/terminals/claude/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Say hello', timeoutSeconds: 90 }),
    });
    expect(res.status).toBe(200);
    const turn = (await res.json()) as {
      turnId: string;
      result: string;
      lastTurn: { result: string; turnId: string };
    };
    expect(turn).toMatchObject({
      result: 'completed',
      lastTurn: { result: 'success', turnId: turn.turnId },
    });
    expect(model.log().some((e) => e.streaming && e.outcome === 'completed')).toBe(true);
    await until(
      'the SSE events',
      async () => events,
      (evs) => evs.some((r) => r.kind === 'turn.ended' && r.turnId === turn.turnId),
    );
    expect(events.find((r) => r.kind === 'turn.ended' && r.turnId === turn.turnId)).toMatchObject({
      outcome: 'success',
      source: 'explicit_input',
    });
    const seqs = events.map((r) => r.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  }, 120_000);

  it('`paneward send ID TEXT --wait` through the server exits 0 on success', async () => {
    await until(
      'ready again',
      () => get<View>('/v1/terminals/claude'),
      (v) => v.operations.sendInput.allowed === 'yes',
    );
    model.enqueue({ text: 'Second reply, for the command line.', chunkDelayMs: 60 });
    const r = await execa(
      process.execPath,
      [BIN, 'send', 'claude', 'Say it again', '--wait', '--timeout', '90', '--url', base],
      { reject: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // The turn id as soon as it is typed, then the outcome.
    const [typed, outcome] = r.stdout.trim().split('\n');
    expect(typed).toMatch(/^turn-\d+$/);
    expect(outcome).toBe(`${typed} success`);
    const ls = await execa(process.execPath, [BIN, 'ls', '--url', base]);
    expect(ls.stdout).toMatch(/claude +\S+ +claude_code +ready +ready +success@turn-\d+/);
  }, 120_000);
});
