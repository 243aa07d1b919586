import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/observe/control-client.js';
import { commandLine } from '../../src/observe/control-protocol.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-control-client-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number | undefined) =>
  pid !== undefined && spawnSync('kill', ['-0', String(pid)]).status === 0;

describe('ControlClient on a real tmux server', () => {
  let s: AgentSession;
  let client: ControlClient;
  const panes: string[] = [];

  beforeAll(async () => {
    s = await startAgentSession({
      cwd: dir,
      env: { PS1: '$ ' },
      command: ['bash', '--norc', '--noprofile'],
      socketName: uniqueSocketName('pw-scale-client'),
      cols: 70,
      rows: 6,
    });
    panes.push(
      (await s.transport.run(['display-message', '-p', '-t', s.target, '#{pane_id}'])).trim(),
    );
    for (let i = 1; i < 6; i++) {
      const id = await s.transport.run([
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{pane_id}',
        '-t',
        'pw',
        `printf 'window %s\\n' ${i}; exec sleep 300`,
      ]);
      panes.push(id.trim());
    }
    client = await ControlClient.start({ socketName: s.socketName });
  });
  afterAll(async () => {
    await client?.close();
    await s?.close();
  });

  it('matches a batch of replies to its lines, in order, equal to capture-pane', async () => {
    await s.waitForText(/^\$/m);
    // Every window has printed its line: the screens are still from here on.
    for (const [i, p] of panes.entries()) {
      if (i === 0) continue;
      for (let tries = 0; ; tries++) {
        const screen = await s.transport.run(['capture-pane', '-p', '-t', p]);
        if (screen.startsWith(`window ${i}`)) break;
        if (tries > 200) throw new Error(`window ${i} did not print`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const lines = panes.flatMap((p) => [
      commandLine('display-message', ['-p', '-t', p, '#{pane_id}']),
      commandLine('capture-pane', ['-p', '-t', p]),
    ]);
    const replies = await Promise.all(client.commands(lines));
    expect(replies).toHaveLength(panes.length * 2);
    for (const [i, p] of panes.entries()) {
      const facts = replies[2 * i]!;
      const screen = replies[2 * i + 1]!;
      expect(facts).toMatchObject({ ok: true, fromClient: true, body: p });
      const direct = await s.transport.run(['capture-pane', '-p', '-t', p]);
      expect(screen.body).toBe(direct.replace(/\n$/, ''));
    }
    expect(replies[5]!.body).toMatch(/^window 2$/m);
    const numbers = replies.map((r) => r.number);
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
    expect(client.outstanding).toBe(0);
  });

  it('does not time out a reply that came while its own process was too busy to read it', async () => {
    const reply = client.command("display-message -p 'late but there'", { timeoutMs: 100 });
    // tmux answers within milliseconds; this process reads nothing for 400 ms, then finds both
    // the reply and the expired timer.
    const end = performance.now() + 400;
    while (performance.now() < end) {
      // Busy: no I/O, no timers.
    }
    await expect(reply).resolves.toMatchObject({ ok: true, body: 'late but there' });
  });

  it('answers a missing pane and a bad command with an error reply', async () => {
    const [missing, bad, fine] = await Promise.all(
      client.commands(["capture-pane -p -t '%9999'", 'not-a-command', "display-message -p 'ok'"]),
    );
    expect(missing).toMatchObject({ ok: false, body: "can't find pane: %9999" });
    expect(bad).toMatchObject({ ok: false, body: expect.stringMatching(/unknown command/) });
    expect(fine).toMatchObject({ ok: true, body: 'ok' });
  });

  it('reports output of a pane in its session', async () => {
    const seen = firstValueFrom(
      client.notifications.pipe(
        filter((n) => n.type === 'output' && n.paneId === panes[0]),
        timeout(5000),
      ),
    );
    await s.sendText('echo hello');
    await s.sendKeys('Enter');
    expect(await seen).toMatchObject({ type: 'output', paneId: panes[0] });
  });

  it('rejects a command when the server dies, and reports the exit', async () => {
    const other = await startAgentSession({
      cwd: dir,
      env: {},
      command: ['sleep', '300'],
      socketName: uniqueSocketName('pw-scale-client'),
    });
    const c = await ControlClient.start({ socketName: other.socketName });
    const exitNote = firstValueFrom(
      c.notifications.pipe(
        filter((n) => n.type === 'exit'),
        timeout(5000),
      ),
    );
    await other.close();
    expect(await exitNote).toEqual({ type: 'exit', reason: null });
    const exit = await c.exited;
    expect(exit.exitCode).toBe(0);
    await expect(c.command("display-message -p 'late'")).rejects.toMatchObject({
      code: 'tmux_failed',
    });
    expect(alive(c.pid)).toBe(false);
  });

  it('detaches on close and leaves the server running', async () => {
    const c = await ControlClient.start({ socketName: s.socketName });
    expect(alive(c.pid)).toBe(true);
    const exit = await c.close();
    expect(exit.reason).toBeNull();
    expect(alive(c.pid)).toBe(false);
    expect(await s.capture()).toContain('echo hello');
  });
});

describe('ControlClient failures', () => {
  it('reports a socket with no server as tmux_missing and starts none there', async () => {
    const socketName = uniqueSocketName('pw-scale-client-none');
    await expect(ControlClient.start({ socketName })).rejects.toMatchObject({
      code: 'tmux_missing',
    });
    const ls = spawnSync('tmux', ['-L', socketName, 'list-sessions'], { stdio: 'pipe' });
    expect(ls.status).not.toBe(0);
    // tmux may leave its socket file behind.
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.()}`, socketName), {
      force: true,
    });
  });

  it('times out a command that is never answered, and kills a client that will not leave', async () => {
    // Prints the attach block, then ignores its input forever.
    const fake = join(dir, 'silent-tmux');
    writeFileSync(
      fake,
      "#!/bin/sh\nprintf '%%begin 1 1 0\\n%%end 1 1 0\\n'\ntrap '' TERM\nwhile :; do sleep 1; done\n",
    );
    chmodSync(fake, 0o755);
    const c = await ControlClient.start({ tmuxBinary: fake });
    await expect(c.command("display-message -p 'x'", { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'tmux_timeout',
    });
    expect(c.outstanding).toBe(1);
    const started = Date.now();
    await c.close();
    expect(alive(c.pid)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('gives up on an attach that does not answer', async () => {
    const fake = join(dir, 'mute-tmux');
    writeFileSync(fake, '#!/bin/sh\nexec sleep 300\n');
    chmodSync(fake, 0o755);
    await expect(
      ControlClient.start({ tmuxBinary: fake, startTimeoutMs: 200 }),
    ).rejects.toMatchObject({ code: 'tmux_timeout' });
  });
});
