import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { InputBody } from '../../src/schemas/operations/index.js';
import { gate, operationsFor } from '../../src/terminal/operations.js';
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
