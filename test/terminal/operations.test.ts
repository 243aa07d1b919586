import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { verifiedVersionsOf } from '../../src/profiles/index.js';
import { operationsFor } from '../../src/terminal/operations.js';
import { readState } from './internal/read-state.js';

const state = readState;

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

  it('an unrecognised screen of a release newer than the verified ones is a wait that names the release', () => {
    const s = state((s) => {
      s.toolVersion = '2.2.0';
      s.toolVersionVerified = false;
      s.surface.uiContext = 'unrecognised';
      s.readiness.status = 'unknown';
    });
    expect(operationsFor(s).sendInput).toEqual({
      allowed: 'wait',
      reason: `the screen matches no shape paneward knows; claude_code 2.2.0 is newer than the verified ${verifiedVersionsOf('claude_code').join(', ')} (see paneward doctor)`,
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
