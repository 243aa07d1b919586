/**
 * Live: Kilo (an opencode fork) with the same plugin as its witness (docs/hooks.md), written by
 * `paneward hooks install kilo` into a scratch config; the real CLI runs offline in a real tmux
 * pane and `paneward serve` (with a token) takes what it posts: a success, an interruption and
 * an API error are each decided with the plugin's word.
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
import { kiloAgent } from '../../../src/tooling/agents/kilo.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-live/hooks-kilo', String(process.pid));
const TOKEN = 'hooks-live-token-0123456789abcdef';
const missing = !existsSync(kiloAgent.bin);

describe.skipIf(missing)('live Kilo: the opencode plugin as its witness', () => {
  const socketName = uniqueSocketName('hooks-kilo');
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
  const state = () => call<TerminalState>('/v1/terminals/kilo');
  const ready = (s: TerminalState) =>
    s.readiness.status === 'ready' &&
    s.turn.phase === 'ready' &&
    s.diagnostics.availability === 'available';
  const history = async () =>
    (await call<{ records: JournalRecord[] }>('/v1/terminals/kilo/history?limit=500')).records;
  const send = (text: string) =>
    call<{ turnId: string }>('/v1/terminals/kilo/input', {
      method: 'POST',
      body: JSON.stringify({ text }),
    });
  const wait = (turnId: string) =>
    call<{ lastTurn: { result: string } }>(`/v1/terminals/kilo/turns/${turnId}?timeoutSeconds=90`);
  /** The hook posts the service answered 200, by event name is not logged: by count. */
  const hookPosts = () =>
    serveLog
      .split('\n')
      .filter((l) => l.includes('"path":"/v1/hooks/kilo"') && l.includes('"status":200')).length;

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
    const launch = kiloAgent.prepare(options);
    await kiloAgent.setup?.(options);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    base = `http://127.0.0.1:${port}`;

    const install = await execa(
      process.execPath,
      [BIN, 'hooks', 'install', 'kilo', '--url', base, '--token-file', tokenFile],
      { env: { HOME: home, XDG_CONFIG_HOME: launch.env.XDG_CONFIG_HOME! }, reject: false },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    expect(readdirSync(join(launch.env.XDG_CONFIG_HOME!, 'kilo', 'plugin'))).toEqual([
      'paneward.js',
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
    await agent.waitForText(kiloAgent.idle, kiloAgent.startupTimeoutMs);
    await call('/v1/terminals', {
      method: 'POST',
      body: JSON.stringify({ target: agent.target, tool: 'kilo', id: 'kilo' }),
    });
    await until('ready', state, ready, 60_000);
  }, 180_000);

  afterAll(async () => {
    serve?.kill('SIGTERM');
    await agent?.close();
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  const endedOf = async (turnId: string) =>
    until(`turn.ended of ${turnId}`, history, (rs) =>
      rs.some((r) => r.kind === 'turn.ended' && r.turnId === turnId),
    ).then((rs) => rs.find((r) => r.kind === 'turn.ended' && r.turnId === turnId)!);

  it('a success is decided with the plugin’s idle, sooner than the screen alone', async () => {
    model.enqueue({ text: 'A reply from the fake model for the plugin.', chunkDelayMs: 40 });
    const before = hookPosts();
    const { turnId } = await send('prompt for the plugin');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('success');
    const ended = await endedOf(turnId);
    expect(ended).toMatchObject({
      outcome: 'success',
      witness: 'both',
      hook: { event: 'session.idle' },
    });
    expect(hookPosts()).toBeGreaterThanOrEqual(before + 2);
    const req = model
      .log()
      .filter((e) => e.streaming)
      .at(-1)!;
    const at = (ended as { t: number }).t;
    const lagMs = at * 1000 - req.endedAt!;
    console.log(`kilo plugin: success ${Math.round(lagMs)} ms after the stream ended`);
    // The screen alone waits out Kilo drawing 2-3 s after the stream ended, then the settle.
    expect(lagMs).toBeLessThan(1500);
  }, 120_000);

  it('an interruption is decided with the plugin’s MessageAbortedError', async () => {
    await until('ready', state, ready);
    const long = Array.from({ length: 80 }, (_, i) => `Sentence ${i + 1}.`).join(' ');
    model.enqueue({ text: long, chunkDelayMs: 150 });
    const { turnId } = await send('a long story please');
    await agent.waitForText(/Sentence 3/, 30_000);
    await call('/v1/terminals/kilo/interrupt', { method: 'POST' });
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('interrupted');
    await until('the plugin agreeing', state, (s) => s.lastTurn.witness === 'both', 4000);
  }, 120_000);

  it('an API error is decided with the plugin’s APIError', async () => {
    await until('ready', state, ready);
    for (let i = 0; i < 3; i += 1) model.enqueue({ error: { status: 400 } });
    const { turnId } = await send('this one fails');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('known_failure');
    const ended = await endedOf(turnId);
    expect(ended).toMatchObject({ outcome: 'known_failure' });
    console.log(`kilo plugin: failure ${JSON.stringify(ended)}`);
  }, 120_000);
});
