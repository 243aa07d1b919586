import {
  readdirSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecaTransport, maxTimeoutMs } from '../../src/observe/execa-transport.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;

function fakeTmux(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-transport-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('createExecaTransport against a real tmux server', () => {
  let session: AgentSession;
  beforeAll(async () => {
    session = await startAgentSession({ cwd: dir, env: {}, command: ['sleep', '300'] });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('returns stdout unmodified', async () => {
    const out = await session.transport.run([
      'display-message',
      '-p',
      '-t',
      session.target,
      'x#{pane_index}y',
    ]);
    expect(out).toBe('x0y\n');
  });

  it('maps a missing pane and a missing session to tmux_missing', async () => {
    await expect(session.transport.run(['capture-pane', '-p', '-t', '%999'])).rejects.toMatchObject(
      {
        code: 'tmux_missing',
      },
    );
    await expect(
      session.transport.run(['capture-pane', '-p', '-t', 'nope:0.0']),
    ).rejects.toMatchObject({
      code: 'tmux_missing',
    });
  });

  it('maps an unknown command to tmux_failed', async () => {
    await expect(session.transport.run(['no-such-command'])).rejects.toMatchObject({
      code: 'tmux_failed',
    });
  });
});

describe('createExecaTransport failures', () => {
  it('maps "no server running" to tmux_missing', async () => {
    const transport = createExecaTransport({ socketName: uniqueSocketName('pw-absent') });
    await expect(transport.run(['list-panes', '-a'])).rejects.toMatchObject({
      code: 'tmux_missing',
    });
  });

  it('maps a missing socket path to tmux_missing', async () => {
    const transport = createExecaTransport({ socketPath: join(dir, 'no-socket') });
    await expect(transport.run(['list-panes', '-a'])).rejects.toMatchObject({
      code: 'tmux_missing',
    });
  });

  it('maps a missing binary to tmux_failed', async () => {
    const transport = createExecaTransport({ tmuxBinary: join(dir, 'no-tmux-here') });
    await expect(transport.run(['list-panes'])).rejects.toMatchObject({ code: 'tmux_failed' });
  });

  it('times out a hung tmux within the bound', async () => {
    const transport = createExecaTransport({
      tmuxBinary: fakeTmux('hang', 'exec sleep 30'),
      timeoutMs: 300,
    });
    const started = Date.now();
    await expect(transport.run(['list-panes'])).rejects.toMatchObject({ code: 'tmux_timeout' });
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('settles even when a child of the killed process keeps stdout open', async () => {
    // Not exec'd: the shell dies on SIGTERM but its sleep holds the pipe until it ends.
    const transport = createExecaTransport({
      tmuxBinary: fakeTmux('hang-child', 'sleep 4'),
      timeoutMs: 300,
    });
    const started = Date.now();
    await expect(transport.run(['list-panes'])).rejects.toMatchObject({ code: 'tmux_timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('honours an AbortSignal', async () => {
    const transport = createExecaTransport({
      tmuxBinary: fakeTmux('hang2', 'exec sleep 30'),
      timeoutMs: 10_000,
    });
    const controller = new AbortController();
    const started = Date.now();
    const call = transport.run(['list-panes'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('runs at most maxConcurrent tmux processes at once', async () => {
    const lock = join(dir, 'running');
    const log = join(dir, 'concurrency.log');
    const release = join(dir, 'release');
    mkdirSync(lock);
    // Each call registers, logs how many are running, then waits at a barrier the test opens.
    const binary = fakeTmux(
      'count',
      [
        `mkdir "${lock}/$$"; ls "${lock}" | wc -l >> "${log}"`,
        `i=0; while [ ! -e "${release}" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done`,
        `rmdir "${lock}/$$"`,
      ].join('\n'),
    );
    const transport = createExecaTransport({ tmuxBinary: binary, maxConcurrent: 3 });
    const calls = Promise.all(Array.from({ length: 9 }, () => transport.run(['list-panes'])));
    const running = () => readdirSync(lock).length;
    const deadline = Date.now() + 10_000;
    while (running() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(running()).toBe(3);
    // Held at the barrier: a fourth call must not start.
    await new Promise((r) => setTimeout(r, 100));
    expect(running()).toBe(3);
    writeFileSync(release, '');
    await calls;
    const seen = readFileSync(log, 'utf8').trim().split('\n').map(Number);
    expect(seen).toHaveLength(9);
    expect(Math.max(...seen)).toBe(3);
  });

  it('rejects calls after close', async () => {
    const transport = createExecaTransport({ socketName: uniqueSocketName('pw-absent') });
    await transport.close();
    await expect(transport.run(['list-panes'])).rejects.toMatchObject({ code: 'stopped' });
  });
});

describe('createExecaTransport timeouts', () => {
  it('refuses timeouts a Node timer cannot wait, instead of timing out at once', async () => {
    for (const timeoutMs of [3e9, Infinity, 1.5, 0, maxTimeoutMs() + 1]) {
      expect(() => createExecaTransport({ timeoutMs })).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          message: expect.stringMatching(/timeoutMs/),
        }),
      );
    }
    expect(() => createExecaTransport({ forceKillAfterMs: 2 ** 31 })).toThrow(/forceKillAfterMs/);
    const transport = createExecaTransport({ tmuxBinary: fakeTmux('ok', 'echo ok') });
    for (const timeoutMs of [3e9, Infinity]) {
      await expect(transport.run(['list-panes'], { timeoutMs })).rejects.toMatchObject({
        code: 'invalid_input',
      });
    }
  });

  it('waits the longest timeout it accepts', async () => {
    expect(maxTimeoutMs(250)).toBe(2 ** 31 - 1 - 250 - 500);
    const transport = createExecaTransport({
      tmuxBinary: fakeTmux('slow-ok', 'sleep 0.2; echo ok'),
      timeoutMs: maxTimeoutMs(),
    });
    expect(await transport.run(['list-panes'])).toBe('ok\n');
    expect(await transport.run(['list-panes'], { timeoutMs: maxTimeoutMs() })).toBe('ok\n');
  });
});
