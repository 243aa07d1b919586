import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { operationsFor } from '../../src/supervisor/operations.js';
import { initialState } from '../../src/terminal/state.js';

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
  patch(s);
  return s;
}

describe('operationsFor: why a prompt cannot be sent', () => {
  it('a permission prompt needs a person, even while its turn is pending', () => {
    const s = state((s) => {
      s.readiness.status = 'blocked';
      s.surface.blockedPrompt = 'tool_permission';
      s.completion = { turnId: 'turn-1', status: 'blocked' } as TerminalState['completion'];
    });
    expect(operationsFor(s).sendInput).toEqual({
      allowed: 'no',
      reason: 'the agent waits for the operator (tool_permission)',
    });
  });

  it('a release newer than the verified ones is named, with the way to read it anyway', () => {
    const s = state((s) => {
      s.toolVersion = '2.2.0';
      s.surface.uiContext = 'unrecognised';
      s.readiness.status = 'unknown';
    });
    expect(operationsFor(s).sendInput).toEqual({
      allowed: 'no',
      reason:
        'claude_code 2.2.0 is newer than the verified 2.1.332, 2.1.330: its screens are not read (--read-unverified)',
    });
  });

  it('an unrecognised screen of a verified version is a wait, and says so', () => {
    const s = state((s) => {
      s.toolVersion = '2.1.330';
      s.surface.uiContext = 'unrecognised';
      s.readiness.status = 'unknown';
    });
    expect(operationsFor(s).sendInput).toEqual({
      allowed: 'wait',
      reason: 'the screen matches no shape paneward knows',
    });
  });
});
