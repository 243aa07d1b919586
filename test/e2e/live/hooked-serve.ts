/**
 * The set-up the hooks' live tests share: `paneward hooks install <tool>` run as a user runs it,
 * the agent CLI started from a shell in a real tmux pane (with the `TMUX` and `TMUX_PANE` tmux
 * sets in every pane, which the harness's clean environment leaves out), and a real
 * `paneward serve` with a token supervising that pane, with helpers to talk to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { JournalRecord } from '../../../src/schemas/record.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../harness/session.js';

export const PANEWARD_BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const TOKEN = 'hooks-live-token-0123456789abcdef';

/** Makes a scratch folder afresh, with the token file the hook and the service read. */
export function hookScratch(scratch: string): { tokenFile: string } {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const tokenFile = join(scratch, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  return { tokenFile };
}

export interface HookedServeOptions {
  scratch: string;
  tokenFile: string;
  socketName: string;
  /** The profile id, as the hook and the attach name it. */
  tool: string;
  /** The terminal id to attach the pane as. */
  id: string;
  launch: { command: readonly string[]; cwd: string; env: Record<string, string> };
  /** The environment `paneward hooks install` runs in (HOME, XDG_CONFIG_HOME). */
  installEnv: Record<string, string>;
  /** Waited for on the pane before it is attached, when given. */
  idle?: RegExp;
  readyTimeoutMs: number;
}

export interface HookedServe {
  agent: AgentSession;
  call<T>(path: string, init?: RequestInit): Promise<T>;
  until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms?: number): Promise<T>;
  state(): Promise<TerminalState>;
  ready(s: TerminalState): boolean;
  history(): Promise<JournalRecord[]>;
  /** The `turn.ended` record of a turn, once it is in the journal. */
  endedOf(turnId: string): Promise<JournalRecord>;
  send(text: string): Promise<{ turnId: string }>;
  wait(turnId: string): Promise<{ lastTurn: { result: string; at: number } }>;
  /** Hook posts the service answered 200 (the log names no event: by count). */
  hookPosts(): number;
  /**
   * When each hook post the service answered 200 reached it (epoch ms, in order): the request
   * line's time (written once the answer is sent) less the `ms` it took.
   */
  hookArrivals(): number[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as { port: number }).port;
  probe.close();
  return port;
}

export async function startHookedServe(o: HookedServeOptions): Promise<HookedServe> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let serve: ChildProcess | undefined;
  let agent: AgentSession | undefined;
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
  ): Promise<T> => {
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
  const hookArrivals = (): number[] =>
    serveLog
      .split('\n')
      // The last piece is a line still being written (or empty).
      .slice(0, -1)
      .filter((l) => l.includes(`"path":"/v1/hooks/${o.tool}"`) && l.includes('"status":200'))
      .map((l) => {
        const { time, ms } = JSON.parse(l) as { time: number; ms: number };
        return time - ms;
      });
  const terminal = `/v1/terminals/${o.id}`;
  const state = () => call<TerminalState>(terminal);
  const ready = (s: TerminalState) =>
    s.readiness.status === 'ready' &&
    s.turn.phase === 'ready' &&
    s.diagnostics.availability === 'available';
  const history = async () =>
    (await call<{ records: JournalRecord[] }>(`${terminal}/history?limit=500`)).records;
  const close = async () => {
    serve?.kill('SIGTERM');
    await agent?.close();
  };

  try {
    const install = await execa(
      process.execPath,
      [PANEWARD_BIN, 'hooks', 'install', o.tool, '--url', base, '--token-file', o.tokenFile],
      { env: o.installEnv, reject: false },
    );
    if (install.exitCode !== 0) throw new Error(`hooks install: ${install.stderr}`);

    agent = await startAgentSession({
      socketName: o.socketName,
      cols: 160,
      rows: 45,
      cwd: o.launch.cwd,
      env: { ...o.launch.env, PS1: 'shell$ ' },
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
    await agent.sendText(`TMUX_PANE='${pane}' TMUX='${tmuxVar}' ${o.launch.command.join(' ')}`);
    await agent.sendKeys('Enter');

    serve = spawn(
      process.execPath,
      [
        PANEWARD_BIN,
        'serve',
        '--port',
        String(port),
        '-L',
        o.socketName,
        '--data-dir',
        join(o.scratch, 'data'),
        '--token-file',
        o.tokenFile,
        '--no-discover',
        '--poll-interval',
        '0.25',
        // Each request is logged at debug: the hook posts are counted from those lines.
        '--log-level',
        'debug',
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
    if (o.idle) await agent.waitForText(o.idle, o.readyTimeoutMs);
    await call('/v1/terminals', {
      method: 'POST',
      body: JSON.stringify({ target: agent.target, tool: o.tool, id: o.id }),
    });
    await until('ready', state, ready, o.readyTimeoutMs + 30_000);
  } catch (e) {
    await close();
    throw e;
  }

  return {
    agent,
    call,
    until,
    state,
    ready,
    history,
    endedOf: async (turnId) =>
      until(`turn.ended of ${turnId}`, history, (rs) =>
        rs.some((r) => r.kind === 'turn.ended' && r.turnId === turnId),
      ).then((rs) => rs.find((r) => r.kind === 'turn.ended' && r.turnId === turnId)!),
    send: (text) =>
      call<{ turnId: string }>(`${terminal}/input`, {
        method: 'POST',
        body: JSON.stringify({ text }),
      }),
    wait: (turnId) =>
      call<{ lastTurn: { result: string; at: number } }>(
        `${terminal}/turns/${turnId}?timeoutSeconds=90`,
      ),
    hookPosts: () => hookArrivals().length,
    hookArrivals,
    close,
  };
}
