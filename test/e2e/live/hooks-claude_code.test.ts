/**
 * Live: Claude Code's hooks as the third witness (docs/hooks.md). `paneward hooks install`
 * writes the hook into a scratch HOME, the real CLI runs offline in a real tmux pane against
 * the fake model server, and `paneward serve` (with a token) takes the hook's events: a
 * success and an API error are each decided with the hook's word in the journal; an
 * interruption, which no hook tells, stays the screen's (and the record's), with no anomaly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/schemas/record.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import {
  CLAUDE_CODE_BIN,
  claudeCodeFacts,
  prepareClaudeCode,
} from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-live/hooks-claude_code', String(process.pid));
const TOKEN = 'hooks-live-token-0123456789abcdef';
const missing = !existsSync(CLAUDE_CODE_BIN);
const REPLY = 'A reply from the fake model, a few words long so that it streams for a moment.';
const LONG = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} of a long answer.`).join(' ');

describe.skipIf(missing)('live Claude Code: hooks as the third witness', () => {
  const socketName = uniqueSocketName('hooks-live');
  const home = join(SCRATCH, 'home');
  const tokenFile = join(SCRATCH, 'token');
  let model: FakeModelServer;
  let agent: AgentSession;
  let serve: ChildProcess;
  let base = '';
  const auth = { authorization: `Bearer ${TOKEN}` };

  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...auth, ...init.headers },
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
      if (Date.now() > deadline)
        throw new Error(`${what}: not seen in ${ms} ms: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const state = () => call<TerminalState>('/v1/terminals/claude');
  const ready = (s: TerminalState) =>
    s.readiness.status === 'ready' &&
    s.turn.phase === 'ready' &&
    s.diagnostics.availability === 'available';
  const history = async () =>
    (await call<{ records: JournalRecord[] }>('/v1/terminals/claude/history?limit=500')).records;
  const endedOf = async (turnId: string) =>
    until(`turn.ended of ${turnId}`, history, (rs) =>
      rs.some((r) => r.kind === 'turn.ended' && r.turnId === turnId),
    ).then((rs) => rs.find((r) => r.kind === 'turn.ended' && r.turnId === turnId)!);
  const send = (prompt: string) =>
    call<{ turnId: string }>('/v1/terminals/claude/input', {
      method: 'POST',
      body: JSON.stringify({ text: prompt }),
    });
  const wait = (turnId: string) =>
    call<{ lastTurn: { result: string; at: number } }>(
      `/v1/terminals/claude/turns/${turnId}?timeoutSeconds=60`,
    );

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    mkdirSync(SCRATCH, { recursive: true });
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({ home, cwd: join(SCRATCH, 'work'), baseUrl: model.url });
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    base = `http://127.0.0.1:${port}`;

    // The hook, installed by the command a user runs, into the test HOME's user settings.
    const install = await execa(
      process.execPath,
      [BIN, 'hooks', 'install', 'claude_code', '--url', base, '--token-file', tokenFile],
      { env: { HOME: home }, reject: false },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toContain(
      'paneward-hook.js',
    );

    // A shell in the pane starts the CLI with what tmux sets in every pane (TMUX, TMUX_PANE),
    // which the harness's clean environment leaves out.
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
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await until(
      'serve up',
      () =>
        fetch(`${base}/healthz`)
          .then((r) => r.ok)
          .catch(() => false),
      (ok) => ok,
    );
    await call('/v1/terminals', {
      method: 'POST',
      body: JSON.stringify({ target: agent.target, tool: 'claude_code', id: 'claude' }),
    });
    await until('ready', state, ready, claudeCodeFacts.startupTimeoutMs + 30_000);
  }, 120_000);

  afterAll(async () => {
    serve?.kill('SIGTERM');
    await agent?.close();
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 30_000);

  it('a success is decided with the hook’s Stop, no later than the screen alone', async () => {
    model.enqueue({ text: REPLY, chunkDelayMs: 60 });
    const { turnId } = await send('prompt for the hook');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('success');
    const ended = await endedOf(turnId);
    expect(ended).toMatchObject({ outcome: 'success', witness: 'both', hook: { event: 'Stop' } });
    const s = await state();
    expect(s.lastTurn).toMatchObject({ result: 'success', witness: 'both' });
    const req = model
      .log()
      .filter((e) => e.streaming)
      .at(-1)!;
    const lagMs = r.lastTurn.at * 1000 - req.endedAt!;
    console.log(`hooks: success ${Math.round(lagMs)} ms after the stream ended`);
    expect(lagMs).toBeLessThanOrEqual((1 + 2 * 0.25) * 1000);
    // Nothing of the turn's text reached the journal.
    expect(JSON.stringify(await history())).not.toContain('prompt for the hook');
  }, 90_000);

  it('an interruption, which no hook tells, stays the screen’s: no hook evidence, no anomaly', async () => {
    await until('ready', state, ready);
    model.enqueue({ text: LONG, chunkDelayMs: 150 });
    const { turnId } = await send('a long story please');
    await agent.waitForText(/Sentence 3 /, 30_000);
    await call('/v1/terminals/claude/interrupt', { method: 'POST' });
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('interrupted');
    await new Promise((res) => setTimeout(res, 3500)); // longer than the witness window
    const records = await history();
    const ended = records.find((x) => x.kind === 'turn.ended' && x.turnId === turnId)!;
    expect(ended).toMatchObject({ outcome: 'interrupted' });
    expect(ended).not.toHaveProperty('hook');
    expect(
      records.filter((x) => x.kind === 'anomaly' && x.anomaly === 'witness_disagreement'),
    ).toEqual([]);
  }, 90_000);

  it('an API error is decided with the hook’s StopFailure and its kind', async () => {
    await until('ready', state, ready);
    model.enqueue({ error: { status: 500, type: 'api_error', message: 'Internal server error' } });
    const { turnId } = await send('this one fails');
    const r = await wait(turnId);
    expect(r.lastTurn.result).toBe('known_failure');
    const ended = await endedOf(turnId);
    expect(ended).toMatchObject({ outcome: 'known_failure' });
    // The screen shows the error as the CLI runs its hook: the hook decides it with the screen,
    // or confirms the screen's word a moment later; either way the journal names the hook.
    await until('the hook agreeing', state, (s) => s.lastTurn.witness === 'both', 3000);
    const records = await history();
    const named =
      ('hook' in ended && ended.hook?.event === 'StopFailure') ||
      records.some(
        (x) =>
          x.kind === 'state' &&
          x.evidence?.detector === 'hook:StopFailure' &&
          JSON.stringify(x.changed).includes('"both"'),
      );
    expect(named).toBe(true);
  }, 90_000);

  it('uninstall takes the hook out and leaves what else is in the settings as it was', async () => {
    const file = join(home, '.claude', 'settings.json');
    // The CLI writes its own settings too while it runs (an `env` member): those stay.
    const before = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const r = await execa(process.execPath, [BIN, 'hooks', 'uninstall', 'claude_code'], {
      env: { HOME: home },
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const { hooks, ...rest } = before;
    expect(Object.keys(hooks as object).sort()).toEqual([
      'Stop',
      'StopFailure',
      'UserPromptSubmit',
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(rest);
    expect(rest).toMatchObject({ permissions: { defaultMode: 'default' } });
  }, 30_000);
});
