/**
 * Live: Cline's hooks as a witness (docs/hooks.md). `paneward hooks install cline` writes its
 * scripts into a scratch HOME's `~/.cline/hooks`, the real CLI runs offline in a real tmux pane
 * against the fake model server, and `paneward serve` (with a token) takes what they post: a
 * finished reply is a success and an API error a known failure, with the hooks' events taken.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/schemas/record.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-live/hooks-cline', String(process.pid));
const TOKEN = 'hooks-live-token-0123456789abcdef';
const missing = !existsSync(clineAgent.bin);

describe.skipIf(missing)('live Cline: hooks as a witness', () => {
  const socketName = uniqueSocketName('hooks-cline');
  const home = join(SCRATCH, 'home');
  const tokenFile = join(SCRATCH, 'token');
  let options: ChatLaunchOptions;
  let model: FakeModelServer;
  let agent: AgentSession;
  let serve: ChildProcess;
  let base = '';
  let serveLog = '';

  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
        ...init.headers,
      },
    });
    const body = (await res.json()) as T;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const until = async <T>(
    what: string,
    read: () => Promise<T>,
    ok: (v: T) => boolean,
    ms = 30_000,
  ) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > deadline) {
        throw new Error(`${what}: not seen in ${ms} ms: ${JSON.stringify(v)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const state = () => call<TerminalState>('/v1/terminals/cline');
  const ready = (s: TerminalState) =>
    s.readiness.status === 'ready' &&
    s.turn.phase === 'ready' &&
    s.diagnostics.availability === 'available';
  const history = async () =>
    (await call<{ records: JournalRecord[] }>('/v1/terminals/cline/history?limit=500')).records;
  const send = (text: string) =>
    call<{ turnId: string }>('/v1/terminals/cline/input', {
      method: 'POST',
      body: JSON.stringify({ text }),
    });
  const wait = (turnId: string) =>
    call<{ lastTurn: { result: string } }>(`/v1/terminals/cline/turns/${turnId}?timeoutSeconds=90`);
  /** The hook posts the service answered 200, by event name is not logged: by count. */
  const hookPosts = () =>
    serveLog
      .split('\n')
      .filter((l) => l.includes('"path":"/v1/hooks/cline"') && l.includes('"status":200')).length;

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    mkdirSync(SCRATCH, { recursive: true });
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    model = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    options = {
      scratch: SCRATCH,
      workDir: join(SCRATCH, 'work'),
      serverUrl: model.url,
      retries: 'default',
    };
    const launch = clineAgent.prepare(options);
    await clineAgent.setup!(options);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    base = `http://127.0.0.1:${port}`;

    const install = await execa(
      process.execPath,
      [BIN, 'hooks', 'install', 'cline', '--url', base, '--token-file', tokenFile],
      { env: { HOME: home }, reject: false },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    expect(readdirSync(join(home, '.cline', 'hooks')).sort()).toEqual([
      'TaskCancel.sh',
      'TaskComplete.sh',
      'TaskError.sh',
      'TaskStart.sh',
    ]);

    agent = await startAgentSession({
      socketName,
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: { ...launch.env, PS1: 'shell$ ' },
      command: ['bash', '--norc', '--noprofile', '-i'],
    });
    await agent.waitForText(/shell\$/);
    const [pane, tmux] = (
      await agent.transport.run([
        'display-message',
        '-p',
        '-t',
        agent.target,
        '#{pane_id}\t#{socket_path},#{pid},#{session_id}',
      ])
    )
      .trim()
      .split('\t');
    const tmuxVar = tmux!.replace(/,\$(\d+)$/, ',$1');
    await agent.sendText(`TMUX_PANE='${pane}' TMUX='${tmuxVar}' ${launch.command.join(' ')}`);
    await agent.sendKeys('Enter');

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
        '--token-file',
        tokenFile,
        '--no-discover',
        '--poll-interval',
        '0.25',
        '--log-level',
        'info',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    serve.stdout!.on('data', (c: Buffer) => (serveLog += c.toString()));
    await until(
      'serve up',
      () =>
        fetch(`${base}/healthz`)
          .then((r) => r.ok)
          .catch(() => false),
      (ok) => ok,
    );
    await agent.waitForText(clineAgent.idle, clineAgent.startupTimeoutMs);
    await call('/v1/terminals', {
      method: 'POST',
      body: JSON.stringify({ target: agent.target, tool: 'cline', id: 'cline' }),
    });
    await until('ready', state, ready, 60_000);
  }, 180_000);

  afterAll(async () => {
    serve?.kill('SIGTERM');
    await agent?.close();
    if (options) await clineAgent.stopDaemons!(options);
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  it('a finished reply is a success, with the hooks’ TaskStart and TaskComplete taken', async () => {
    model.enqueue({ text: 'A reply from the fake model for the hook.', chunkDelayMs: 40 });
    const before = hookPosts();
    const { turnId } = await send('prompt for the cline hook');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('success');
    await until(
      'both hook posts taken',
      async () => hookPosts(),
      (n) => n >= before + 2,
      10_000,
    );
    const ended = (await history()).find((x) => x.kind === 'turn.ended' && x.turnId === turnId);
    expect(ended).toMatchObject({ outcome: 'success', witness: 'both' });
  }, 120_000);

  it('an API error is a known failure, with the hook’s TaskError taken', async () => {
    await until('ready', state, ready);
    for (let i = 0; i < 3; i += 1) model.enqueue({ error: { status: 400 } });
    const before = hookPosts();
    const { turnId } = await send('this one fails');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('known_failure');
    await until(
      'both hook posts taken',
      async () => hookPosts(),
      (n) => n >= before + 2,
      10_000,
    );
    const records = await history();
    const ended = records.find((x) => x.kind === 'turn.ended' && x.turnId === turnId);
    expect(ended).toMatchObject({ outcome: 'known_failure' });
    console.log(
      `cline hooks: failure witness ${JSON.stringify(ended && 'witness' in ended ? ended.witness : null)}, hook ${JSON.stringify(ended && 'hook' in ended ? ended.hook : null)}`,
    );
  }, 120_000);
});
