import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/client.js';
import { describeState } from '../../src/cli/describe.js';
import { terminalTable } from '../../src/cli/table.js';
import type { TerminalView } from '../../src/schemas/operations/index.js';
import { main } from '../../src/cli/main.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

/** Runs the command line, returning its exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    const code = await main(argv);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('the command line as a client of paneward serve', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-client-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '700' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('attach, ls, state: what a person reads, and --json for scripts', async () => {
    // --host is a fleet server's: a single server refuses it, naming the field.
    const hosted = await cli('attach', agent.target, '--host', 'host-a', '--url', url);
    expect(hosted.code).toBe(EXIT.usage);
    expect(hosted.err).toBe('paneward: --host: unknown option\n');
    const attached = await cli('attach', agent.target, '--id', 'c1', '--url', url);
    expect(attached).toMatchObject({ code: EXIT.ok, out: `c1 ${agent.target} stand_in\n` });
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(10_000),
      ),
    );
    const ls = await cli('ls', '--url', url);
    expect(ls.code).toBe(EXIT.ok);
    const [head, row] = ls.out.trimEnd().split('\n');
    expect(head).toMatch(
      /^TERMINAL +TARGET +TOOL +READINESS +PHASE +LAST RESULT +FOR +WHY NOT READY$/,
    );
    expect(row).toMatch(
      new RegExp(`^c1 +${agent.target.replace('.', '\\.')} +stand_in +ready +ready +- +\\d+ s$`),
    );
    // No colour when not on a terminal.
    expect(ls.out).not.toContain('\u001b[');
    const json = await cli('ls', '--url', url, '--json');
    expect(JSON.parse(json.out)).toEqual([
      expect.objectContaining({ terminalId: 'c1', operations: expect.any(Object) }),
    ]);
    const state = await cli('state', 'c1', '--url', url);
    expect(state.out).toContain('send input: yes (the agent waits for a prompt)');
    // No session record for this agent: nothing is said of one.
    expect(state.out).not.toContain('session record');
    // With one, `state` says which witness decided the last turn and where its record stands.
    const [view] = JSON.parse(json.out) as TerminalView[];
    const lines = describeState({
      ...view!,
      lastTurn: {
        result: 'success',
        source: 'explicit_input',
        turnId: 'turn-4',
        at: 1,
        witness: 'both',
      },
      witness: {
        authority: 'both',
        record: 'stepped_aside',
        file: '/r.jsonl',
        why: 'unknown line type',
      },
    });
    expect(lines).toContain(
      '  last turn: success turn-4 (explicit_input, witness both)  session: running',
    );
    expect(lines).toContain(
      '  session record: stepped_aside (completion authority both): unknown line type',
    );
    // A release paneward was not verified against is said so, in `state` and in `ls`.
    const newer = {
      ...view!,
      tool: 'claude_code',
      toolVersion: '9.0.0',
      toolVersionVerified: false,
    };
    expect(describeState(newer)[0]).toMatch(/ claude_code 9\.0\.0 \(unverified\)$/);
    expect(describeState({ ...newer, toolVersionVerified: true })[0]).not.toContain('unverified');
    const table = terminalTable([newer, view!], view!.t, false);
    expect(table[1]).toContain('claude_code (unverified)');
    expect(table[2]).not.toContain('unverified');
  });

  it('send --wait exits by the turn outcome: 0 for success, 1 when it ended without success', async () => {
    const ok = await cli('send', 'c1', 'a fine prompt', '--wait', '--timeout', '20', '--url', url);
    // The turn id first, as soon as the prompt was typed; then the id and its outcome.
    expect(ok).toMatchObject({
      code: EXIT.ok,
      out: expect.stringMatching(/^(turn-\d+)\n\1 success\n$/),
    });
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.readiness.status === 'ready' && s.turn.phase === 'ready'),
        timeout(10_000),
      ),
    );
    const waiting = cli('send', 'c1', 'interrupt me', '--wait', '--timeout', '20', '--url', url);
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.turn.phase === 'active' && s.surface.businessState === 'working'),
        timeout(10_000),
      ),
    );
    // (Through the API: one command line at a time owns this process's stdout.)
    expect(
      (
        await fetch(`${url}/v1/terminals/c1/interrupt`, {
          method: 'POST',
          headers: { 'x-paneward': '1' },
        })
      ).status,
    ).toBe(200);
    expect(await waiting).toMatchObject({
      code: EXIT.turnFailed,
      out: expect.stringMatching(/ interrupted\n$/),
    });
  });

  it('send --wait to a server that dies after typing: the turn id was printed, exit 8 (it ran)', async () => {
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.readiness.status === 'ready' && s.turn.phase === 'ready'),
        timeout(10_000),
      ),
    );
    // The server answers the input (the prompt is typed), and dies while the client waits.
    const doomed = createServer(http.listener);
    const died = new Promise<void>((resolve) =>
      doomed.on('request', (req: { url?: string }) => {
        if (!req.url?.includes('/turns/')) return;
        setTimeout(() => {
          doomed.closeAllConnections();
          doomed.close();
          resolve();
        }, 100);
      }),
    );
    await new Promise<void>((r) => doomed.listen(0, '127.0.0.1', () => r()));
    const doomedUrl = `http://127.0.0.1:${(doomed.address() as { port: number }).port}`;
    const waiting = cli('send', 'c1', 'typed, then the server died', '--wait', '--url', doomedUrl);
    const typed = await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.turn.phase === 'active' && s.turn.current !== null),
        timeout(10_000),
      ),
    );
    await died;
    const r = await waiting;
    expect(r.code, r.err).toBe(EXIT.mayHaveRun);
    expect(r.out).toBe(`${typed.turn.current!.id}\n`);
    expect(r.err).toMatch(/was typed.*lost/);
  });

  it('exit codes a script can rely on: not ready 3, unreachable 4, no such terminal 5, usage 2, timeout 7', async () => {
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.readiness.status === 'ready' && s.completion?.status === 'completed'),
        timeout(10_000),
      ),
    );
    const first = await cli('send', 'c1', 'busy now', '--url', url);
    expect(first.code).toBe(EXIT.ok);
    const second = await cli('send', 'c1', 'too soon', '--url', url);
    expect(second).toMatchObject({ code: EXIT.notReady, err: expect.stringMatching(/not ready/) });
    expect((await cli('send', 'nope', 'hi', '--url', url)).code).toBe(EXIT.notFound);
    expect((await cli('ls', '--url', 'http://127.0.0.1:9')).code).toBe(EXIT.unreachable);
    expect((await cli('send', 'c1', '', '--url', url)).code).toBe(EXIT.usage);
    expect((await cli('events', '--since', 'x', '--url', url)).code).toBe(EXIT.usage);
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.completion?.status === 'completed'),
        timeout(10_000),
      ),
    );
    await firstValueFrom(
      sup.state$('c1').pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(10_000),
      ),
    );
    const slow = await cli('send', 'c1', 'no time', '--wait', '--timeout', '0.2', '--url', url);
    expect(slow).toMatchObject({ code: EXIT.timeout, out: expect.stringMatching(/ timeout\n$/) });
    const detached = await cli('detach', 'c1', '--url', url, '--json');
    expect(detached).toMatchObject({ code: EXIT.ok, out: '{"ok":true}\n' });
  });
});

describe('a connection lost after the request was sent', () => {
  it('is exit 8 (it may have run) for a command that acts, exit 4 for a read; a refused connection is exit 4', async () => {
    // Reads the whole request, then drops the connection without a word.
    const dies = createNetServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('\r\n\r\n')) socket.destroy();
      });
    });
    await new Promise<void>((r) => dies.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(dies.address() as { port: number }).port}`;
      const send = await cli('send', 't1', 'hi', '--url', url);
      expect(send.code, send.err).toBe(EXIT.mayHaveRun);
      expect(send.err).toMatch(/after sending POST \/v1\/terminals\/t1\/input.*may have run/);
      for (const argv of [
        ['interrupt', 't1'],
        ['resume', 't1'],
        ['detach', 't1'],
        ['attach', 'pw:0.0'],
      ]) {
        expect((await cli(...argv, '--url', url)).code, argv.join(' ')).toBe(EXIT.mayHaveRun);
      }
      expect((await cli('ls', '--url', url)).code).toBe(EXIT.unreachable);
      expect((await cli('state', 't1', '--url', url)).code).toBe(EXIT.unreachable);
    } finally {
      await new Promise((r) => dies.close(r));
    }
    // A port nothing listens on: the connection was never made.
    const free = createNetServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const freePort = (free.address() as { port: number }).port;
    await new Promise((r) => free.close(r));
    const refused = await cli('send', 't1', 'hi', '--url', `http://127.0.0.1:${freePort}`);
    expect(refused.code).toBe(EXIT.unreachable);
    expect(refused.err).toContain('ECONNREFUSED');
    expect((await cli('interrupt', 't1', '--url', 'http://127.0.0.1:9')).code).toBe(
      EXIT.unreachable,
    );
  });

  it('--help lists the exit codes, 8 among them', async () => {
    const help = await cli('--help');
    expect(help.out).toContain('8  the command may have run');
  });
});

describe('exit codes through a fleet server', () => {
  it('says a pane whose host is unreachable as unreachable (4); a host that timed out as a server error (8)', async () => {
    const answers: Record<string, [number, string]> = {
      '/v1/terminals/host-a%2Ft1/input': [503, 'host_unreachable'],
      '/v1/terminals/host-b%2Ft1/input': [504, 'host_timeout'],
    };
    const server = createServer((req, res) => {
      const [status, code] = answers[req.url ?? ''] ?? [404, 'unknown_terminal'];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code, message: `${code} (${req.url})` } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as { port: number };
      const url = `http://127.0.0.1:${port}`;
      const unreachable = await cli('send', 'host-a/t1', 'hi', '--url', url);
      expect(unreachable.code, unreachable.err).toBe(EXIT.unreachable);
      const late = await cli('send', 'host-b/t1', 'hi', '--url', url);
      expect(late.code, late.err).toBe(EXIT.server);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
