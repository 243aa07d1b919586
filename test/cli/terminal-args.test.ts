import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit.js';
import { main } from '../../src/cli/main.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** No message of the command line speaks HTTP or names a schema field. */
function inCliTerms(err: string): void {
  expect(err).not.toMatch(/\b(path|body|query):|field `|HTTP/);
}

describe('a pane id or a tmux target wherever a terminal id goes', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url: string;
  let paneId: string;
  const tmuxEnv = process.env.TMUX;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-cli-args-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    const names = await execa('tmux', [
      '-L',
      agent.socketName,
      'display-message',
      '-p',
      '-t',
      agent.target,
      '#{pane_id}\t#{socket_path}',
    ]);
    const [id, socket] = names.stdout.split('\t') as [string, string];
    paneId = id;
    // The command line asks the tmux it runs in ($TMUX) how a pane is named the other way.
    process.env.TMUX = `${socket},0,0`;
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
    // Attached by its session:window.pane, as a person would.
    expect((await cli('attach', agent.target, '--id', 'a1', '--url', url)).code).toBe(EXIT.ok);
    await firstValueFrom(
      sup.state$('a1').pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(10_000),
      ),
    );
  });

  afterAll(async () => {
    if (tmuxEnv === undefined) delete process.env.TMUX;
    else process.env.TMUX = tmuxEnv;
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('state takes the terminal id, its target as attached, and its pane id', async () => {
    for (const arg of ['a1', agent.target, paneId]) {
      const r = await cli('state', arg, '--url', url, '--json');
      expect(r.code, `${arg}: ${r.err}`).toBe(EXIT.ok);
      expect(JSON.parse(r.out)).toMatchObject({ terminalId: 'a1', target: agent.target });
    }
  });

  it('send and interrupt take a pane id or a target; send --wait follows the turn of the terminal it named', async () => {
    const sent = await cli('send', paneId, 'hello', '--wait', '--timeout', '20', '--url', url);
    expect(sent.code, sent.err).toBe(EXIT.ok);
    expect(sent.out).toMatch(/^(\S+)\n\1 success\n$/);
    // The turn is over: the terminal the target named (a1) refuses, saying why.
    const interrupted = await cli('interrupt', agent.target, '--url', url);
    expect(interrupted).toMatchObject({
      code: EXIT.notReady,
      err: 'paneward: terminal a1 refuses interrupt: no turn is running\n',
    });
  });

  it('screen and history take a pane id too', async () => {
    const screen = await cli('screen', paneId, '--url', url);
    expect(screen.code, screen.err).toBe(EXIT.ok);
    expect(screen.out).toContain('❯');
    const history = await cli('history', paneId, '--limit', '5', '--url', url, '--json');
    expect(history.code, history.err).toBe(EXIT.ok);
    const records = history.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { terminalId: string });
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThanOrEqual(5);
    expect(new Set(records.map((r) => r.terminalId))).toEqual(new Set(['a1']));
    const limit = await cli('history', 'a1', '--limit', '0', '--url', url);
    expect(limit).toMatchObject({
      code: EXIT.usage,
      err: 'paneward: --limit: must be at least 1\n',
    });
  });

  it('a pane no terminal is attached to: exit 5, the argument named, and how to attach it', async () => {
    const r = await cli('state', '%99999', '--url', url);
    expect(r.code).toBe(EXIT.notFound);
    expect(r.err).toBe(
      'paneward: <terminal> %99999: no terminal is attached to that pane (paneward ls lists them; paneward attach %99999 attaches it)\n',
    );
    const events = await cli('events', '--terminal', 'nosuch:0.0', '--url', url);
    expect(events.code).toBe(EXIT.notFound);
    expect(events.err).toMatch(/^paneward: --terminal nosuch:0\.0: no terminal is attached/);
  });

  it("the server's errors name the command's arguments and options, not fields of a request", async () => {
    const badId = await cli('state', 'no/such/id', '--url', url);
    expect(badId.code).toBe(EXIT.usage);
    expect(badId.err).toMatch(/^paneward: <terminal>: letters, digits/);
    inCliTerms(badId.err);

    const badTarget = await cli('attach', 'nowhere', '--url', url);
    expect(badTarget.code).toBe(EXIT.usage);
    expect(badTarget.err).toMatch(/^paneward: <target>: target must be "session:window\.pane"/);
    inCliTerms(badTarget.err);

    const twice = await cli('attach', paneId, '--id', 'other', '--url', url);
    expect(twice.code).toBe(EXIT.usage);
    expect(twice.err).toBe(
      `paneward: <target>: pane ${paneId} is already attached as a1 (stand_in)\n`,
    );

    const host = await cli('attach', agent.target, '--host', 'h1', '--url', url);
    expect(host.code).toBe(EXIT.usage);
    expect(host.err).toMatch(/^paneward: --host: /);
    inCliTerms(host.err);

    const empty = await cli('send', 'a1', '', '--url', url);
    expect(empty.code).toBe(EXIT.usage);
    expect(empty.err).toMatch(/^paneward: <text>: /);
    inCliTerms(empty.err);

    const timeoutArg = await cli('send', 'a1', 'x', '--wait', '--timeout', '0', '--url', url);
    expect(timeoutArg.code).toBe(EXIT.usage);
    expect(timeoutArg.err).toBe(
      'paneward: --timeout: must be a positive number of seconds, at most 86400\n',
    );

    const since = await cli('events', '--since', 'x', '--url', url);
    expect(since.err).toBe('paneward: --since: must be a record seq (a whole number)\n');
  });
});
