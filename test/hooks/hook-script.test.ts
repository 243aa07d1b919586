import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../bin/paneward-hook.js', import.meta.url));
const PANE = { TMUX_PANE: '%7', TMUX: '/tmp/tmux-1000/default,4242,0' };
/** What Claude Code 2.1.330 passes its `Stop` hook on stdin (captured; ids shortened). */
const STOP = {
  session_id: 'ead5fac4',
  transcript_path: '/home/u/.claude/projects/-w/ead5fac4.jsonl',
  cwd: '/w',
  prompt_id: 'de2bed09',
  permission_mode: 'default',
  effort: { level: 'medium' },
  hook_event_name: 'Stop',
  stop_hook_active: false,
  last_assistant_message: 'SECRET reply text',
  background_tasks: [],
  session_crons: [],
};
const FAILURE = {
  session_id: 'ead5fac4',
  hook_event_name: 'StopFailure',
  error: 'server_error',
  last_assistant_message: 'API Error: 500 SECRET',
};

interface Got {
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

describe('bin/paneward-hook.js', () => {
  let dir: string;
  let server: Server;
  let url = '';
  const got: Got[] = [];
  let answer: 'ok' | 'never' = 'ok';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-hook-script-'));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        got.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
        if (answer === 'ok') res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    got.length = 0;
    answer = 'ok';
  });

  const run = (args: string[], input: string, env: Record<string, string> = PANE) =>
    execa(process.execPath, [SCRIPT, ...args], {
      input,
      env: { PATH: process.env.PATH ?? '', ...env },
      extendEnv: false,
      reject: false,
    });

  it('posts the event name and the pane, never the text; the token read from its file', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'a-token-of-at-least-sixteen-characters\n');
    const r = await run(
      ['claude_code', '--url', url, '--token-file', tokenFile],
      JSON.stringify(STOP),
    );
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe('/v1/hooks/claude_code');
    expect(got[0]!.body).toEqual({ event: 'Stop', pane: '%7', tmux: PANE.TMUX });
    expect(got[0]!.headers.authorization).toBe('Bearer a-token-of-at-least-sixteen-characters');
    expect(got[0]!.headers['content-type']).toBe('application/json');
    const f = await run(['claude_code', '--url', url], JSON.stringify(FAILURE), {
      ...PANE,
      PANEWARD_TOKEN: 'from-the-environment-token',
    });
    expect(f.exitCode).toBe(0);
    expect(got[1]!.body).toEqual({
      event: 'StopFailure',
      pane: '%7',
      tmux: PANE.TMUX,
      error: 'server_error',
    });
    expect(got[1]!.headers.authorization).toBe('Bearer from-the-environment-token');
    expect(JSON.stringify(got)).not.toContain('SECRET');
  });

  it('a token file that is a FIFO, /dev/zero or too big holds nothing up: posted without a token, exit 0', async () => {
    const fifo = join(dir, 'token-fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'token-big');
    writeFileSync(big, 'x'.repeat(4097));
    for (const file of [fifo, '/dev/zero', big]) {
      got.length = 0;
      const t0 = Date.now();
      const r = await run(
        ['claude_code', '--url', url, '--token-file', file],
        JSON.stringify(STOP),
      );
      // Node's own start is in this too (slow on a loaded machine); a FIFO read as before never
      // ended, and the hook's 2 s give-up could not even fire.
      expect(Date.now() - t0, file).toBeLessThan(3000);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
      expect(got, file).toHaveLength(1);
      expect(got[0]!.headers.authorization, file).toBeUndefined();
    }
  });

  it('Cline’s payload names its event `hookName`; its error object (text) is not passed on', async () => {
    const payload = {
      clineVersion: '',
      taskId: 'conv_1',
      hookName: 'agent_error',
      iteration: 1,
      error: { name: 'Error', message: 'SECRET Invalid request.', stack: 'Error: SECRET' },
    };
    const r = await run(['cline', '--url', url], JSON.stringify(payload));
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(got[0]!.url).toBe('/v1/hooks/cline');
    expect(got[0]!.body).toEqual({ event: 'agent_error', pane: '%7', tmux: PANE.TMUX });
  });

  it('a notify program’s JSON argument is read as the event', async () => {
    const r = await run(['codex', '--url', url, '{"type":"agent-turn-complete"}'], '');
    expect(r.exitCode).toBe(0);
    expect(got[0]!.body).toMatchObject({ event: 'agent-turn-complete' });
  });

  it('outside tmux, without an event, or with garbage: posts nothing, prints nothing, exits 0', async () => {
    for (const [input, env] of [
      [JSON.stringify(STOP), {}],
      ['not json', PANE],
      [JSON.stringify({ hook_event_name: 'Stop; rm -rf /' }), PANE],
      ['', PANE],
    ] as const) {
      const r = await run(['claude_code', '--url', url], input, env);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    expect(got).toEqual([]);
  });

  it('the service down or never answering: exits 0 quickly, silently', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    let t = Date.now();
    const down = await run(
      ['claude_code', '--url', `http://127.0.0.1:${port}`],
      JSON.stringify(STOP),
    );
    expect([down.exitCode, down.stdout, down.stderr]).toEqual([0, '', '']);
    expect(Date.now() - t).toBeLessThan(1500);
    answer = 'never';
    t = Date.now();
    const slow = await run(['claude_code', '--url', url], JSON.stringify(STOP));
    expect([slow.exitCode, slow.stdout, slow.stderr]).toEqual([0, '', '']);
    expect(Date.now() - t).toBeLessThan(3000);
    expect(got).toHaveLength(1);
  });

  it('a CLI that never closes stdin does not hold it: the event read is bounded', async () => {
    const t = Date.now();
    const child = execa(process.execPath, [SCRIPT, 'claude_code', '--url', url], {
      env: { PATH: process.env.PATH ?? '', ...PANE },
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
    });
    child.stdin.write(JSON.stringify(STOP));
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(Date.now() - t).toBeLessThan(3000);
    expect(got[0]!.body).toMatchObject({ event: 'Stop' });
  });
});
