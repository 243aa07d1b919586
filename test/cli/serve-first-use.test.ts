/**
 * `paneward serve` as a new user starts it, as a process on real tmux and real ports: quiet in
 * the terminal while it is used, a tmux server that is not running yet said so and picked up
 * when it starts, and a busy port refused before anything is written (docs/service.md).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
const STAND_IN_AGENT = fileURLToPath(
  new URL('../supervisor/internal/stand-in-agent.mjs', import.meta.url),
);
const STAND_IN_PROFILE = fileURLToPath(
  new URL('../supervisor/internal/stand-in-profile.ts', import.meta.url),
);

let dir = '';
let socket = '';
let child: ChildProcess | null = null;
let stdout = '';
let stderr = '';
let busy: Server | null = null;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  busy?.close();
  busy = null;
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // Not running.
  }
  // tmux leaves its socket file behind.
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), {
    force: true,
  });
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function fresh(): void {
  dir = mkdtempSync(join(tmpdir(), 'pw-serve-first-'));
  socket = `pw-first-${process.pid}-${(n += 1)}`;
  stdout = '';
  stderr = '';
}

/** Starts `paneward serve` with these options (stdout and stderr kept apart). */
function serve(args: string[]): ChildProcess {
  child = spawn(process.execPath, [BIN, 'serve', '--socket-name', socket, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  return child;
}

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 90_000) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline || (child && child.exitCode !== null)) {
      throw new Error(`${what}: not so\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The URL of the started server, from its first log line (JSON: stdout is not a terminal). */
async function listening(): Promise<string> {
  await until('serve is listening', () => stdout.includes('paneward serve listening'));
  const line = stdout.split('\n').find((l) => l.includes('paneward serve listening'))!;
  return (JSON.parse(line) as { url: string }).url;
}

const logLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; path?: string });

describe('paneward serve, started by hand', () => {
  it('logs no request at the default level (warnings still show); at debug every request is a line', async () => {
    fresh();
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'b', 'sh']);
    serve(['--port', '0', '--data-dir', join(dir, 'data'), '--no-discover']);
    const url = await listening();
    for (const path of ['/healthz', '/v1/terminals', '/v1/terminals/nope']) await fetch(url + path);
    await new Promise((r) => setTimeout(r, 1000));
    // One line said it listens; the requests said nothing.
    expect(logLines(stdout).map((l) => l.msg)).toEqual(['paneward serve listening']);
    expect(stderr).toBe('');
    child!.kill('SIGTERM');
    await until('serve stopped', () => child!.exitCode !== null);

    stdout = '';
    serve([
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--no-discover',
      '--log-level',
      'debug',
    ]);
    const again = await listening();
    await fetch(`${again}/v1/terminals`);
    await until('the request is logged', () =>
      logLines(stdout).some((l) => l.msg === 'request' && l.path === '/v1/terminals'),
    );
    const line = logLines(stdout).find((l) => l.msg === 'request')!;
    expect(line).toMatchObject({ level: 20, path: '/v1/terminals', status: 200, method: 'GET' });
  }, 240_000);

  it('warns that the tmux server is not running, naming the socket, and attaches its agent panes once it starts', async () => {
    fresh();
    const profiles = join(dir, 'profiles.ts');
    writeFileSync(
      profiles,
      `import { standInProfile } from ${JSON.stringify(STAND_IN_PROFILE)};\n` +
        'export const profiles = { stand_in: standInProfile };\n',
    );
    serve([
      ...['--port', '0', '--data-dir', join(dir, 'data'), '--profile-module', profiles],
      ...['--discover-interval', '1'],
    ]);
    const url = await listening();
    const warning = logLines(stdout).find((l) => l.level === 40);
    expect(warning?.msg).toBe(
      `no tmux server -L ${socket} is running: serving 0 terminals for now; ` +
        'once it runs, its agent panes are attached (looked for every 1 s)',
    );
    const list = async () =>
      (
        (await (await fetch(`${url}/v1/terminals`)).json()) as {
          terminals: Array<{ terminalId: string; tool: string }>;
        }
      ).terminals;
    expect(await list()).toEqual([]);
    // The user starts tmux with an agent in it.
    execFileSync('tmux', [
      ...['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'work', '-n', 'agent'],
      ...[process.execPath, STAND_IN_AGENT],
    ]);
    await until('the tmux server is noticed', () =>
      stdout.includes(`the tmux server -L ${socket} is running now`),
    );
    await until('the agent pane is attached', async () => (await list()).length === 1, 30_000);
    expect(await list()).toMatchObject([{ terminalId: 'work-agent', tool: 'stand_in' }]);
  }, 240_000);

  it('refuses a busy port with exit code 2, naming the port, and writes nothing into the data directory', async () => {
    fresh();
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    const dataDir = join(dir, 'empty');
    mkdirSync(dataDir);
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'b', 'sh']);
    const c = serve(['--port', String(port), '--data-dir', dataDir]);
    const code = await new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `paneward: serve: --port: cannot listen on 127.0.0.1:${port}: the port is in use by another ` +
        'process; nothing was started or written; choose another with --port',
    );
    expect(readdirSync(dataDir)).toEqual([]);
    // A data directory that did not exist is not made either.
    const c2 = serve(['--port', String(port), '--data-dir', join(dir, 'not-yet')]);
    expect(await new Promise<number | null>((r) => c2.once('exit', (code) => r(code)))).toBe(2);
    expect(existsSync(join(dir, 'not-yet'))).toBe(false);
  }, 240_000);
});
