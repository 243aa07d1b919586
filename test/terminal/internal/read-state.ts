import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { initialState } from '../../../src/terminal/state.js';

/** The public state of a Claude Code pane that is seen and read, changed by `patch`. */
export function readState(patch: (s: TerminalState) => void): TerminalState {
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
