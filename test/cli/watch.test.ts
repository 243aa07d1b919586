import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWatch } from '../../src/cli/watch.js';
import { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';

describe('paneward watch', () => {
  let session: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-watch-'));
    session = await startAgentSession({
      cwd: dir,
      env: {},
      command: ['sh', '-c', 'echo hello; exec cat'],
    });
  });

  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the public state of a live pane until the duration ends', async () => {
    const out: string[] = [];
    const err: string[] = [];
    await runWatch(
      {
        targets: [session.target],
        socketName: session.socketName,
        duration: '1.5',
        format: 'json',
      },
      { out: (l) => out.push(l), err: (l) => err.push(l), signal: new AbortController().signal },
    );
    const states = out.map((l) => TerminalState.parse(JSON.parse(l)));
    expect(states.length).toBeGreaterThan(0);
    const last = states.at(-1)!;
    // `cat` is no known agent: detected as unsupported, so readiness refuses to guess.
    expect(last.tool).toBe('unsupported');
    expect(last.diagnostics.transport).toBe('tmux_up');
    expect(last.readiness.status).toBe('failed');
    expect(err).toEqual([]);
  });

  it('refuses a target that is no pane, naming `target`, before watching anything', async () => {
    const out: string[] = [];
    await expect(
      runWatch(
        { targets: [session.target, '%9999'], socketName: session.socketName, format: 'brief' },
        { out: (l) => out.push(l), err: () => {}, signal: new AbortController().signal },
      ),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'attach: field `target`: no pane %9999 on this tmux server',
    });
    expect(out).toEqual([]);
  });

  it('says on each line why a pane cannot take a prompt: no agent CLI', async () => {
    const out: string[] = [];
    await runWatch(
      {
        targets: [session.target],
        socketName: session.socketName,
        duration: '1.5',
        format: 'brief',
      },
      { out: (l) => out.push(l), err: () => {}, signal: new AbortController().signal },
    );
    expect(
      out.some((l) =>
        new RegExp(
          ` t1 ${session.target.replace('.', '\\.')} unsupported .*\\(no agent CLI in this pane\\)`,
        ).test(l),
      ),
    ).toBe(true);
  });

  it('with --discover, keeps watching and picks up an agent pane that starts later', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    // A process named like Claude Code: what discovery looks for.
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "❯ "\nwhile :; do sleep 1; done\n');
    chmodSync(join(bin, 'claude'), 0o755);
    const out: string[] = [];
    const err: string[] = [];
    const stop = new AbortController();
    const watching = runWatch(
      { targets: [], discover: true, socketName: session.socketName, format: 'brief' },
      { out: (l) => out.push(l), err: (l) => err.push(l), signal: stop.signal },
    );
    await new Promise((r) => setTimeout(r, 500));
    await execa('tmux', [
      '-L',
      session.socketName,
      'new-window',
      '-d',
      '-t',
      'pw',
      '-n',
      'claude',
      join(bin, 'claude'),
    ]);
    const deadline = Date.now() + 15_000;
    while (!out.some((l) => / claude_code /.test(l)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await watching;
    expect(err).toEqual(['paneward: watching for panes that run a known agent CLI']);
    // Named after its session (`pw`) and window (`claude`), not `t1`: a name people can place.
    expect(out.find((l) => / claude_code /.test(l))).toMatch(/ pw-claude %\d+ claude_code /);
  });

  it('draws a live table in place on a terminal', async () => {
    let screen = '';
    await runWatch(
      { targets: [session.target], socketName: session.socketName, duration: '1.2' },
      {
        out: () => {},
        err: () => {},
        signal: new AbortController().signal,
        tty: { rows: () => 20, write: (t) => (screen += t), color: true },
      },
    );
    expect(screen).toContain('TERMINAL');
    expect(screen).toMatch(new RegExp(`${String.fromCharCode(27)}\\[\\d+F`)); // redrawn in place
    expect(screen).toContain('\u001b[31mfailed'); // state colours
  });

  it('names the missing field', async () => {
    await expect(runWatch({ targets: [] })).rejects.toThrow(/targets.*--discover/);
    await expect(runWatch({ targets: ['bad target'] })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
