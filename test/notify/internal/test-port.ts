import { Subject } from 'rxjs';
import { JournalRecord } from '../../../src/schemas/record.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import type { SupervisorPort } from '../../../src/service/port.js';
import { initialState } from '../../../src/terminal/state.js';

/**
 * The notifier reads a port's record stream and its states: here a port whose records the test
 * writes, as a supervisor's journal would hand them over (the end-to-end test runs a real one).
 */
export function testPort() {
  const records = new Subject<JournalRecord>();
  const states = new Map<string, TerminalState>();
  let seq = 0;
  const port = {
    journal: { records$: records.asObservable(), lastSeq: 0, durableSeq: 0, readAfter: () => [] },
    ids: () => [...states.keys()],
    get: (id: string) => {
      const s = states.get(id);
      if (!s) throw new Error(`unknown terminal ${id}`);
      return s;
    },
  } as unknown as SupervisorPort;
  const put = (id: string, change: (s: TerminalState) => void = () => {}) => {
    const s =
      states.get(id) ??
      initialState({
        t: 1,
        terminalId: id,
        target: '%1',
        tool: 'stand_in',
        toolVersion: null,
        budgetSeconds: 0,
      });
    change(s);
    states.set(id, s);
  };
  const emit = (draft: Record<string, unknown>) =>
    records.next(JournalRecord.parse({ v: 1, seq: ++seq, at: new Date().toISOString(), ...draft }));
  return {
    port,
    put,
    emit,
    drop: (id: string) => states.delete(id),
    turnEnded: (id: string, turnId: string, outcome = 'success') =>
      emit({
        kind: 'turn.ended',
        terminalId: id,
        turnId,
        source: 'explicit_input',
        outcome,
        t: 2,
      }),
    blocked: (id: string, prompt: string) =>
      emit({
        kind: 'state',
        terminalId: id,
        t: 2,
        changed: { 'readiness.status': 'blocked', 'surface.blockedPrompt': prompt },
        transitions: [],
        evidence: null,
      }),
  };
}
