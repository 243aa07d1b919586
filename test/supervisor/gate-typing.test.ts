import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import type { ProfileFactory } from '../../src/profiles/types.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { standInProfile } from './internal/stand-in-profile.js';
import { until } from './internal/until-state.js';

const READER = fileURLToPath(new URL('./internal/paste-reader.mjs', import.meta.url));
/** The paste reader, read as the stand-in agent is (its prompt `❯`). */
const readerProfile: ProfileFactory = (v, o) => ({
  ...standInProfile(v, o),
  id: 'paste_reader',
  processNames: ['paste-reader'],
});

describe('typing: one bracketed paste from a tmux buffer', () => {
  let reader: AgentSession;
  let dir: string;
  let out: string;
  let sup: Supervisor;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-paste-'));
    out = join(dir, 'received');
    reader = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: {},
      command: [process.execPath, READER, out],
    });
    await reader.waitForText(/❯/);
    sup = createSupervisor({
      socketName: reader.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1 },
      profiles: { paste_reader: readerProfile },
    });
    const id = await sup.attach({ target: reader.target, tool: 'paste_reader', id: 'p1' });
    await until(sup, id, (s) => s.readiness.status === 'ready');
  });

  afterAll(async () => {
    await sup?.stop();
    await reader?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a 64 KiB prompt with `;`, tmux syntax, tabs and newlines arrives whole and literal', async () => {
    const head = 'a;b \\; c\t{d} #{pane_id} $HOME ~ "q" \'s\' Enter C-c\nsecond line ✓ ';
    let text = head;
    while (text.length < 64 * 1024 - 1) text += 'x';
    text = `${text.slice(0, 64 * 1024 - 1)};`;
    expect(text.length).toBe(64 * 1024);
    await sup.submit('p1', text);
    const expected = `\u001b[200~${text}\u001b[201~\r`;
    const deadline = Date.now() + 10_000;
    let got = '';
    while (Date.now() < deadline) {
      got = readFileSync(out, 'utf8');
      if (got.length >= expected.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(got.length).toBe(expected.length);
    expect(got === expected).toBe(true);
    // The buffer is gone with the paste: the prompt does not stay in tmux.
    const buffers = await execa('tmux', ['-L', reader.socketName, 'list-buffers']);
    expect(buffers.stdout).toBe('');
  });

  it('a prompt with control characters is refused naming `text`, and nothing is typed', async () => {
    const before = readFileSync(out, 'utf8');
    for (const bad of [
      '\u001b',
      '\u0000',
      'early\rsubmit',
      '\u001b[201~',
      '\u001b]52;c;eA==\u0007',
    ]) {
      await expect(sup.submit('p1', `x${bad}y`, { force: true })).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(
          /^submit: field `text`: must not contain control characters/,
        ),
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(readFileSync(out, 'utf8')).toBe(before);
  });
});

describe('typing while tmux is frozen', () => {
  let reader: AgentSession;
  let dir: string;
  let serverPid: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-frozen-'));
    reader = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: {},
      command: [process.execPath, READER, join(dir, 'received')],
    });
    await reader.waitForText(/❯/);
    const pid = await execa('tmux', ['-L', reader.socketName, 'display-message', '-p', '#{pid}']);
    serverPid = Number(pid.stdout.trim());
  });

  afterAll(async () => {
    try {
      process.kill(serverPid, 'SIGCONT');
    } catch {
      // already gone
    }
    await reader?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A transport that stops the tmux server (SIGSTOP) just before the first `command` runs. */
  function freezingAt(command: string): TmuxTransport {
    const inner = createExecaTransport({ socketName: reader.socketName, timeoutMs: 800 });
    let frozen = false;
    return {
      run(args, opts) {
        if (!frozen && args[0] === command) {
          frozen = true;
          process.kill(serverPid, 'SIGSTOP');
        }
        return inner.run(args, opts);
      },
      close: () => inner.close(),
    };
  }

  async function attached(transport: TmuxTransport, id: string) {
    const sup = createSupervisor({
      transport,
      dataDir: join(dir, id),
      config: { pollIntervalSeconds: 0.1 },
      profiles: { paste_reader: readerProfile },
    });
    await sup.attach({ target: reader.target, tool: 'paste_reader', id });
    await until(sup, id, (s) => s.readiness.status === 'ready');
    return sup;
  }

  it('a paste that timed out is reported as one that may have been typed, its turn recorded', async () => {
    const sup = await attached(freezingAt('paste-buffer'), 'f1');
    try {
      const error = await sup.submit('f1', 'typed while frozen').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        code: 'tmux_timeout',
        message: expect.stringContaining('may have been typed'),
        details: { turnId: expect.stringMatching(/^turn-\d+$/), mayHaveBeenTyped: true },
      });
      const turnId = (error as { details: { turnId: string } }).details.turnId;
      await sup.journal.flush();
      expect(
        sup.journal.read(0, 'f1').filter((r) => r.kind === 'turn.started' && r.turnId === turnId),
      ).toHaveLength(1);
    } finally {
      process.kill(serverPid, 'SIGCONT');
      await sup.stop();
    }
  }, 30_000);

  it('a prompt whose buffer could not be loaded in time is never typed when tmux answers again', async () => {
    const received = join(dir, 'received');
    const sup = await attached(freezingAt('load-buffer'), 'f2');
    const before = readFileSync(received, 'utf8');
    try {
      await expect(sup.submit('f2', 'never typed', { force: true })).rejects.toMatchObject({
        code: 'tmux_timeout',
      });
      process.kill(serverPid, 'SIGCONT');
      await new Promise((r) => setTimeout(r, 1500));
      expect(readFileSync(received, 'utf8')).toBe(before);
      await sup.journal.flush();
      expect(sup.journal.read(0, 'f2').filter((r) => r.kind === 'turn.started')).toEqual([]);
    } finally {
      process.kill(serverPid, 'SIGCONT');
      await sup.stop();
    }
  }, 30_000);
});
