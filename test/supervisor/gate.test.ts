import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, isPanewardError, type Supervisor } from '../../src/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import type { ProfileFactory } from '../../src/profiles/types.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { InputBody } from '../../src/schemas/operations/index.js';
import { gate, operationsFor } from '../../src/terminal/operations.js';
import { initialState } from '../../src/terminal/state.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

const READER = fileURLToPath(new URL('./internal/paste-reader.mjs', import.meta.url));
/** The paste reader, read as the stand-in agent is (its prompt `❯`). */
const readerProfile: ProfileFactory = (v, o) => ({
  ...standInProfile(v, o),
  id: 'paste_reader',
  processNames: ['paste-reader'],
});

function state(patch: (s: TerminalState) => void): TerminalState {
  const s = initialState({
    t: 0,
    terminalId: 't1',
    target: 'w:0.0',
    tool: 'claude_code',
    toolVersion: null,
    budgetSeconds: 0,
  });
  s.diagnostics.availability = 'available';
  s.diagnostics.parse = 'parsed';
  s.readiness.status = 'ready';
  patch(s);
  return s;
}

const until = (sup: Supervisor, id: string, pred: (s: TerminalState) => boolean, ms = 15_000) =>
  firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

describe('the gate: one predicate for the verdicts and the actions', () => {
  it('a running turn, even one inferred from a screen that looks ready, takes no prompt', () => {
    const s = state((s) => {
      s.turn.phase = 'active';
      s.turn.current = { id: 'turn-4', source: 'surface_inference', startedAt: 1 };
    });
    expect(operationsFor(s).sendInput).toEqual({
      allowed: 'no',
      reason: 'the agent is working: turn turn-4 is running; wait for it to end or interrupt it',
    });
    expect(gate(s, 'sendInput')).toMatchObject({ allowed: 'no' });
    // `force` is the explicit way past it.
    expect(gate(s, 'sendInput', { force: true })).toBeNull();
    expect(gate(s, 'interrupt')).toBeNull();
  });

  it('interrupt needs a running turn, resume a blocked session; detach is always possible', () => {
    const idle = state(() => {});
    expect(gate(idle, 'interrupt')).toEqual({ allowed: 'no', reason: 'no turn is running' });
    expect(gate(idle, 'resume')).toEqual({ allowed: 'no', reason: 'the session is not blocked' });
    expect(gate(idle, 'detach')).toBeNull();
    const shell = state((s) => {
      s.tool = 'unsupported';
      s.diagnostics.parse = 'unsupported_tool';
      s.surface.businessState = 'working';
    });
    expect(gate(shell, 'interrupt')).toEqual({
      allowed: 'no',
      reason: 'no agent CLI in this pane',
    });
    const blocked = state((s) => {
      s.session = { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' };
    });
    expect(gate(blocked, 'resume')).toBeNull();
  });

  it('a pane that reads no input refuses every prompt, forced or not', () => {
    const s = state(() => {});
    const facts = { readsNoInput: 'it plays a recording' };
    expect(operationsFor(s, facts).sendInput).toEqual({
      allowed: 'no',
      reason: 'the pane reads no input: it plays a recording',
    });
    expect(gate(s, 'sendInput', { ...facts, force: true })).toMatchObject({ allowed: 'no' });
  });

  it('an answer needs a question on screen, a session not blocked and a pane that reads input; never forced', () => {
    const question = {
      id: 'q-0123456789ab',
      kind: 'tool_permission' as const,
      subject: 'touch x',
      prompt: 'Do you want to proceed?',
      choices: [{ id: 'allow_once', label: 'Yes' }],
    };
    const asking = state((s) => {
      s.readiness.status = 'blocked';
      s.surface.blockedPrompt = 'permission_prompt';
      s.surface.question = question as TerminalState['surface']['question'];
    });
    expect(operationsFor(asking).answer).toEqual({
      allowed: 'yes',
      reason: 'the agent asks question q-0123456789ab (tool_permission)',
    });
    expect(gate(asking, 'answer')).toBeNull();
    expect(
      gate(
        state(() => {}),
        'answer',
        { force: true },
      ),
    ).toEqual({
      allowed: 'no',
      reason: 'no question waits for the operator',
    });
    const unread = state((s) => {
      s.readiness.status = 'blocked';
      s.surface.blockedPrompt = 'permission_prompt';
    });
    expect(gate(unread, 'answer')?.reason).toBe(
      'the dialog on screen (permission_prompt) is not one paneward reads as a question; answer it in the pane',
    );
    const watchdog = structuredClone(asking);
    watchdog.session = { status: 'blocked', stopReasonCode: 'watchdog_wall_clock_exceeded' };
    expect(gate(watchdog, 'answer', { force: true })).toEqual({
      allowed: 'no',
      reason: 'the watchdog blocked the session (watchdog_wall_clock_exceeded); resume it first',
    });
    const gone = structuredClone(asking);
    gone.diagnostics.availability = 'tui_down';
    expect(gate(gone, 'answer')?.reason).toBe('the agent is not running in the pane');
    expect(gate(asking, 'answer', { readsNoInput: 'it plays a recording', force: true })).toEqual({
      allowed: 'no',
      reason: 'the pane reads no input: it plays a recording',
    });
  });

  it('the HTTP prompt schema refuses control characters naming `text`, never echoing it', () => {
    for (const bad of ['\u0000', 'a\u001b[201~b', 'x\rsubmit early', '\u009b', '\u007f']) {
      const r = InputBody.safeParse({ text: `secret ${bad}` });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['text']);
      expect(JSON.stringify(r.error!.issues)).not.toContain('secret');
    }
    expect(InputBody.safeParse({ text: 'tab\tand\nnewline; ok;' }).success).toBe(true);
  });
});

describe('the gate with real tmux', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-gate-'));
    agent = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
  });

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two prompts sent at the same moment to a ready terminal: one turn, one refusal, every time', async () => {
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'c1' });
    for (let i = 0; i < 8; i++) {
      await until(sup, id, () => sup.operations(id).sendInput.allowed === 'yes');
      const both = await Promise.allSettled([
        sup.submit(id, `first ${i}`),
        sup.submit(id, `second ${i}`),
      ]);
      const accepted = both.filter((r) => r.status === 'fulfilled');
      const refused = both.filter((r) => r.status === 'rejected');
      expect(accepted, `try ${i}`).toHaveLength(1);
      expect(refused[0]!.reason).toMatchObject({ code: 'not_ready' });
      const turnId = (accepted[0] as PromiseFulfilledResult<string>).value;
      const done = await sup.waitForTurn(id, turnId, { timeoutMs: 15_000 });
      expect(done.lastTurn.result).toBe('success');
    }
    // The agent saw each accepted prompt as a prompt of its own: no two texts in one input.
    const screen = await agent.capture();
    expect(screen).not.toMatch(/first \d+second|second \d+first/);
  }, 120_000);

  it('interrupt with no turn running and resume of a session not blocked are refused', async () => {
    await until(sup, 'c1', () => sup.operations('c1').sendInput.allowed === 'yes');
    const before = await agent.capture();
    await expect(sup.interrupt('c1')).rejects.toMatchObject({
      code: 'refused',
      message: 'terminal c1 refuses interrupt: no turn is running',
    });
    await expect(sup.resume('c1')).rejects.toMatchObject({
      code: 'refused',
      details: { reason: 'the session is not blocked' },
    });
    await new Promise((r) => setTimeout(r, 300));
    // Nothing was typed: the stand-in echoes Ctrl-C at its prompt as `^C`.
    expect(await agent.capture()).toBe(before);
  });

  it('a pane marked as reading no input refuses prompts, forced or not, and says why', async () => {
    sup.refuseInput('c1', 'it plays a recording');
    expect(sup.operations('c1').sendInput).toEqual({
      allowed: 'no',
      reason: 'the pane reads no input: it plays a recording',
    });
    for (const force of [false, true]) {
      await expect(sup.submit('c1', 'hello', { force })).rejects.toMatchObject({
        code: 'not_ready',
        message: 'terminal c1 is not ready (the pane reads no input: it plays a recording)',
      });
    }
    sup.detach('c1');
  });

  it('terminal ids start with a letter or digit: `.` and `..` are refused naming `id`', async () => {
    for (const id of ['.', '..', '-x', '_y']) {
      await expect(sup.attach({ target: agent.target, tool: 'stand_in', id })).rejects.toThrow(
        /attach: field `id`/,
      );
    }
  });
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

describe('attach: one pane, one terminal, and no pane that is gone', () => {
  let agent: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-attach-'));
    agent = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (data: string) =>
    createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, data),
      config: { pollIntervalSeconds: 0.1 },
      profiles: { stand_in: standInProfile },
    });

  it('attaching a target already attached answers its terminal, or is refused naming `target`', async () => {
    const sup = open('same');
    try {
      const id = await sup.attach({ target: agent.target, tool: 'stand_in' });
      expect(await sup.attach({ target: agent.target })).toBe(id);
      await expect(sup.attach({ target: agent.target, id: 'other' })).rejects.toThrow(
        /^attach: field `target`: .* is already attached as t1 \(stand_in\)$/,
      );
      expect(sup.ids()).toEqual([id]);
    } finally {
      await sup.stop();
    }
  });

  it("the README's example run twice on one data directory keeps one terminal", async () => {
    for (let run = 0; run < 2; run++) {
      const sup = open('readme');
      try {
        // The README's library example, as written there.
        expect(await sup.attach({ target: agent.target })).toBe('t1');
        // `attachPane` is the former name of the same call.
        expect(await sup.attachPane({ target: agent.target })).toBe('t1');
        expect(sup.ids()).toEqual(['t1']);
      } finally {
        await sup.stop();
      }
    }
  });

  it('a pane that does not exist is refused naming `target`, and nothing is recorded', async () => {
    const sup = open('nosuch');
    try {
      const error: unknown = await sup.attach({ target: 'nosuch:0.0' }).catch((e: unknown) => e);
      expect(isPanewardError(error) && error.code).toBe('invalid_input');
      expect((error as Error).message).toBe(
        'attach: field `target`: no pane nosuch:0.0 on this tmux server',
      );
      await expect(sup.attach({ target: '%999', tool: 'stand_in', id: 'x' })).rejects.toThrow(
        /^attach: field `target`: no pane %999 /,
      );
      expect(sup.ids()).toEqual([]);
      await sup.journal.flush();
      expect(sup.journal.read().map((r) => r.kind)).toEqual(['supervisor.started']);
    } finally {
      await sup.stop();
    }
    // Not re-adopted either: a new supervisor on the same data starts empty.
    const again = open('nosuch');
    try {
      expect(again.ids()).toEqual([]);
    } finally {
      await again.stop();
    }
  });

  it('one pane attached by target and by pane id is one terminal', async () => {
    const sup = open('byid');
    try {
      const paneId = (
        await execa('tmux', [
          '-L',
          agent.socketName,
          'display-message',
          '-p',
          '-t',
          agent.target,
          '#{pane_id}',
        ])
      ).stdout.trim();
      const id = await sup.attach({ target: agent.target, tool: 'stand_in' });
      expect(await sup.attach({ target: paneId })).toBe(id);
      expect(await sup.attach({ target: paneId, tool: 'stand_in' })).toBe(id);
      expect(sup.ids()).toEqual([id]);
      await sup.journal.flush();
      expect(sup.journal.read().filter((r) => r.kind === 'terminal.attached')).toHaveLength(1);
    } finally {
      await sup.stop();
    }
  });

  it('a pane that is gone is not re-adopted: its terminal is detached, recorded', async () => {
    const tmux = (...args: string[]) => execa('tmux', ['-L', agent.socketName, ...args]);
    const ghostPane = (
      await tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', agent.target.split(':')[0]!)
    ).stdout.trim();
    const first = open('gone');
    await first.attach({ target: ghostPane, tool: 'stand_in', id: 'ghost' });
    await first.attach({ target: agent.target, tool: 'stand_in', id: 'real' });
    await first.stop();
    await tmux('kill-pane', '-t', ghostPane);
    const second = open('gone');
    try {
      await until(second, 'real', (s) => s.readiness.status === 'ready');
      const deadline = Date.now() + 5000;
      while (second.ids().includes('ghost') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(second.ids()).toEqual(['real']);
      await second.journal.flush();
      expect(
        second.journal.read(0, 'ghost').filter((r) => r.kind === 'terminal.detached'),
      ).toHaveLength(1);
    } finally {
      await second.stop();
    }
    // And the start after that has nothing of it to re-adopt.
    const third = open('gone');
    try {
      expect(third.ids()).toEqual(['real']);
    } finally {
      await third.stop();
    }
  });
});
