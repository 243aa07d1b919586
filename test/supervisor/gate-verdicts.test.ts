import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { InputBody } from '../../src/schemas/operations/index.js';
import { gate, operationsFor } from '../../src/terminal/operations.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';
import { until } from './internal/until-state.js';
import { readState } from './internal/read-state.js';

/** A pane seen, read and ready, changed by `patch`. */
const state = (patch: (s: TerminalState) => void): TerminalState =>
  readState((s) => {
    s.readiness.status = 'ready';
    patch(s);
  });

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
